/**
 * Latency of a bridged MCP tool: the median of 1,000 sequential `echo` calls on
 * `@modelcontextprotocol/server-everything` (a devDependency) through our bridge and executor
 * (`ToolSystem.execute("agent__echo", ...)`: argument check with ajv, every gate, the guard's
 * deadline, the proxy, the connection's own `tools/call` table (`src/tools/mcp/directCalls.ts`)
 * over our process transport) beside the same calls made straight with the SDK's `Client` over
 * its own `StdioClientTransport`, in one run, the ways taking turns call by call. Each way has
 * a server of its own, so each server answers as many calls (a server that answered more is
 * further warmed). Taking turns call by call, each way runs with the caches the others left,
 * as a call among an agent's other work does.
 *
 * The bridge is called as an Effect agent calls a tool: `yield* system.execute(...)` from a
 * fiber that is already running (one long-lived fiber per way, woken for each of its turns; it
 * times the call itself, so waking it is not part of the call). Goal: at most 1.1x the direct
 * call. Beside it, the same SDK call awaited in `Effect.async` from such a fiber shows the floor
 * of any bridge built on Effect.
 *
 * Two more ways start each call from plain async code with `Runtime.runPromise`, as a program
 * that is not an Effect would: the bridge, and the SDK call in `Effect.async`. These also pay
 * for entering the runtime (a new fiber and its promise) on every call; that floor alone was
 * 1.05–1.15x of the direct call on this 2-core VM, so these are printed, not held to the goal.
 *
 * Prints the ratios, and the CPU time of this process per call for each way (the wall time of
 * a call on a busy machine also holds the scheduler's delays; the CPU time is what we add). On
 * a 2-core VM a call's latency also holds the wake-up of the server's idle CPU, which grows
 * with the time between calls: each microsecond of our work costs about two of latency.
 *
 * Run: `npx tsx bench/mcp.ts` (BENCH_CALLS, default 1000; BENCH_WARMUP, default 10000). The
 * library is loaded from `dist/` when it was built with the bridge and is not older than the
 * sources of the bridge (as it ships), else from `src/` (under tsx, esbuild's keep-names wrappers add to every call);
 * BENCH_FROM=dist or BENCH_FROM=src chooses.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Cause, Effect, Exit, Layer, Queue, Runtime } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as Library from "../src/index.js"
import type * as Bridge from "../src/tools/mcp/index.js"

const N = Number(process.env.BENCH_CALLS ?? 1000)
/**
 * Calls each way before measuring. The executor's path is not settled by the JIT after 2,000
 * calls: measured here, its CPU time per call was 95–144 µs after 2,000 and 61–69 µs after
 * 10,000 (the direct call's: 64–74 µs after either).
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10_000)

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const mtime = (file: string) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0)
/** `dist/` holds the bridge, built after the last change to its sources. */
const distIsCurrent = () => {
  const sources = path.join(root, "src/tools/mcp")
  return fs.existsSync(path.join(root, "dist/mcp.js")) &&
    fs.readdirSync(sources).every((file) =>
      !file.endsWith(".ts") ||
      mtime(path.join(root, "dist/tools/mcp", file.replace(/\.ts$/, ".js"))) >= mtime(path.join(sources, file))
    )
}
const from = process.env.BENCH_FROM ?? (distIsCurrent() ? "dist" : "src")
const { ToolSystem, Workspace }: typeof Library = await import(path.join(root, from, "index.js"))
// the `/mcp` entry of the same build (the bundle's, sharing its chunks with `index.js`)
const { McpBridge }: typeof Bridge = await import(path.join(root, from, from === "dist" ? "mcp.js" : "tools/mcp/index.js"))

const everything = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
if (!fs.existsSync(everything)) throw new Error(`${everything} is missing: run npm install (it is a devDependency)`)
/**
 * BENCH_SERVER_CPU=N starts every server under `taskset -c N` (util-linux), so that where the
 * servers run is not left to the scheduler. On this 2-core VM that choice alone moves a way's
 * median by up to 1.8x between runs (the "from a fiber" way, which is the direct call, has
 * printed 0.56x to 1.80x of it): a server woken on the client's core answers in about 50 µs,
 * one woken on the other core in 100–200 µs, and which a server gets is settled early in a
 * run. `taskset -c 0 npx tsx bench/mcp.ts` with BENCH_SERVER_CPU=1 puts the client on one core
 * and every server on the other, the same for every way.
 */
const serverCpu = process.env.BENCH_SERVER_CPU
const server = serverCpu === undefined
  ? { command: process.execPath, args: [everything, "stdio"] }
  : { command: "taskset", args: ["-c", serverCpu, process.execPath, everything, "stdio"] }
const args = { message: "hello" }

/** The bridge's servers: `echo` waived from confirmation (an untrusted server's proxies ask for it by default). */
const bridgedServer = { ...server, toolsWithoutConfirmation: ["echo"] }

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

/** One way of making the call: its latencies (ms) and this process's CPU time (µs) for them. */
interface Way {
  /** Makes one call, timed (and its CPU time counted when `record`). */
  turn: (record: boolean) => Promise<void>
  readonly latency: Array<number>
  cpu: number
}

/** Starts timing one call of `way`; the function returned stops it, and counts it when `record`. */
const startTiming = (way: Way, record: boolean) => {
  const cpu = process.cpuUsage()
  const start = performance.now()
  return () => {
    const latency = performance.now() - start
    if (!record) return
    const used = process.cpuUsage(cpu)
    way.latency.push(latency)
    way.cpu += used.user + used.system
  }
}

/** A way whose calls are made from plain async code. */
const wayOf = (call: () => Promise<unknown>): Way => {
  const way: Way = {
    latency: [],
    cpu: 0,
    turn: async (record) => {
      const stop = startTiming(way, record)
      await call()
      stop()
    }
  }
  return way
}

/**
 * A way whose calls are made by a fiber that keeps running, as an Effect agent makes them: each
 * turn wakes it, and it times the call from inside (waking it is not part of the call).
 */
const inFiber = (call: Effect.Effect<unknown>) =>
  Effect.gen(function*() {
    interface Turn {
      readonly record: boolean
      readonly ended: () => void
      readonly failed: (error: unknown) => void
    }
    const turns = yield* Queue.unbounded<Turn>()
    const way: Way = {
      latency: [],
      cpu: 0,
      turn: (record) => new Promise((ended, failed) => void Queue.unsafeOffer(turns, { record, ended, failed }))
    }
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      const { ended, failed, record } = yield* Queue.take(turns)
      const stop = startTiming(way, record)
      const exit = yield* Effect.exit(call)
      stop()
      // a failed call fails the turn (and the bench), as a rejected promise does in the other ways
      if (Exit.isFailure(exit)) failed(Cause.squash(exit.cause))
      else ended()
    })))
    return way
  })

const program = Effect.gen(function*() {
  const system = yield* ToolSystem
  const runPromise = Runtime.runPromise(yield* Effect.runtime<never>())
  const connected = Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "bench", version: "1.0.0" })
      await client.connect(new StdioClientTransport({ ...server, stderr: "ignore" }))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )
  /** The SDK call awaited in `Effect.async`: the floor of any bridge built on Effect. */
  const sdkInAsync = (sdk: Client) =>
    Effect.async<unknown>((resume) => {
      sdk.callTool({ name: "echo", arguments: args }).then(
        (result) => resume(Effect.succeed(result)),
        (error: unknown) => resume(Effect.die(error))
      )
    })
  const bridgedCall = (name: string) =>
    Effect.flatMap(system.execute(name, args), (r) =>
      r.success ? Effect.void : Effect.dieMessage(`${name} failed: ${r.error}`))
  // each way has a server of its own: the direct calls', the floors' and the bridge's two
  const client = yield* connected
  const direct = wayOf(() => client.callTool({ name: "echo", arguments: args }))
  const fiberClient = yield* connected
  const fiber = wayOf(() => runPromise(sdkInAsync(fiberClient)))
  const bridged = wayOf(() => runPromise(bridgedCall("bench__echo")))
  const agentFloor = yield* inFiber(sdkInAsync(yield* connected))
  const agent = yield* inFiber(bridgedCall("agent__echo"))
  const ways = [direct, fiber, bridged, agentFloor, agent]
  // The ways take turns call by call, each first in turn, so that the machine's drift (another
  // tenant, a core's clock, which core a server wakes on) weighs on all of them alike.
  yield* Effect.promise(async () => {
    for (let i = 0; i < WARMUP + N; i++) {
      for (let k = 0; k < ways.length; k++) await ways[(i + k) % ways.length]!.turn(i >= WARMUP)
    }
  })
  const row = (way: Way) => ({ median: median(way.latency), cpu: way.cpu / N })
  return { direct: row(direct), fiber: row(fiber), bridged: row(bridged), agentFloor: row(agentFloor), agent: row(agent) }
}).pipe(
  Effect.scoped,
  Effect.provide(
    McpBridge.layer({ bench: bridgedServer, agent: bridgedServer }).pipe(
      Layer.provideMerge(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(root) }))
    )
  )
)

const result = await Effect.runPromise(program)
const line = (label: string, way: { readonly median: number; readonly cpu: number }, note = "") =>
  console.log(
    `  ${label.padEnd(40)}${(way.median * 1000).toFixed(0).padStart(5)} µs median, ${way.cpu.toFixed(0)} µs CPU per call` +
      ` (${(way.median / result.direct.median).toFixed(2)}x${note})`
  )
console.log(
  `MCP echo on server-everything, ${N} sequential calls each way, the ways taking turns call by call, library from ${from}/` +
    `${serverCpu === undefined ? "" : `, servers on CPU ${serverCpu}`}:`
)
line("direct SDK client", result.direct)
console.log("  from an Effect program (yield* in a running fiber):")
line("  SDK call in Effect.async", result.agentFloor, ": the floor of an Effect bridge")
line("  bridge + executor", result.agent)
console.log("  from async code, Runtime.runPromise per call:")
line("  SDK call in Effect.async", result.fiber, ": the floor of an Effect bridge")
line("  bridge + executor", result.bridged)
console.log(
  `  ratio: ${(result.agent.median / result.direct.median).toFixed(2)}x from an Effect program (goal <= 1.1x), ` +
    `${(result.bridged.median / result.direct.median).toFixed(2)}x with runPromise per call; ` +
    `CPU ratio ${(result.agent.cpu / result.direct.cpu).toFixed(2)}x, ${(result.bridged.cpu / result.direct.cpu).toFixed(2)}x`
)
