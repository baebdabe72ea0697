/**
 * Latency of a bridged MCP tool: the median of 1,000 sequential `echo` calls on
 * `@modelcontextprotocol/server-everything` (a devDependency) through our bridge and executor
 * (`ToolSystem.execute("bench__echo", ...)`: argument check with ajv, every gate, the guard's
 * deadline, the proxy, the SDK client over our process transport) beside the same calls made
 * straight with the SDK's `Client` over its own `StdioClientTransport`, to a second copy of
 * the same server, in one run, the two taking turns in rounds. Goal: at most 1.1x the direct
 * call. Prints the ratio, and the CPU time of this process per call for each (the wall time of
 * a call on a busy machine also holds the scheduler's delays; the CPU time is what we add).
 *
 * A third way, the same direct call awaited from an Effect fiber (`Effect.async` around the SDK's
 * promise), shows the floor of any bridge built on Effect. On a 2-core VM a call's latency
 * also holds the wake-up of the server's idle CPU, which grows with the time between calls:
 * each microsecond of our work costs about two of latency.
 *
 * Run: `npx tsx bench/mcp.ts` (BENCH_CALLS, default 1000; BENCH_WARMUP, default 2000). The library is loaded from `dist/`
 * when it was built with the bridge and is not older than the sources of the bridge (as it
 * ships), else from `src/` (under tsx, esbuild's keep-names wrappers add to every call);
 * BENCH_FROM=dist or BENCH_FROM=src chooses.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as Library from "../src/index.js"
import type * as Bridge from "../src/tools/mcp/index.js"

const N = Number(process.env.BENCH_CALLS ?? 1000)
/** Calls each way before measuring: the JIT settles the executor's path after a few thousand. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000)
/** Rounds of calls, the two ways taking turns, so that drift on a busy machine hits both. */
const ROUNDS = 10

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
const server = { command: process.execPath, args: [everything, "stdio"] }
const args = { message: "hello" }

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

/** Runs `round` and adds this process's CPU time (µs) to `cpu[0]`. */
const timed = <E, R>(round: Effect.Effect<void, E, R>, cpu: Array<number>) =>
  Effect.suspend(() => {
    const start = process.cpuUsage()
    return Effect.ensuring(
      round,
      Effect.sync(() => {
        const used = process.cpuUsage(start)
        cpu[0] = (cpu[0] ?? 0) + used.user + used.system
      })
    )
  })

const program = Effect.gen(function*() {
  const system = yield* ToolSystem
  const client = new Client({ name: "bench", version: "1.0.0" })
  yield* Effect.acquireRelease(
    Effect.promise(() => client.connect(new StdioClientTransport({ ...server, stderr: "ignore" }))),
    () => Effect.promise(() => client.close())
  )
  const directRound = (n: number, out: Array<number>) =>
    Effect.promise(async () => {
      for (let i = 0; i < n; i++) {
        const start = performance.now()
        await client.callTool({ name: "echo", arguments: args })
        out.push(performance.now() - start)
      }
    })
  const bridgedRound = (n: number, out: Array<number>) =>
    Effect.gen(function*() {
      for (let i = 0; i < n; i++) {
        const start = performance.now()
        const r = yield* system.execute("bench__echo", args)
        out.push(performance.now() - start)
        if (!r.success) return yield* Effect.dieMessage(`bench__echo failed: ${r.error}`)
      }
    })
  /** The direct call awaited from an Effect fiber: the floor of any bridge built on Effect. */
  const fiberRound = (n: number, out: Array<number>) =>
    Effect.gen(function*() {
      for (let i = 0; i < n; i++) {
        const start = performance.now()
        yield* Effect.async<unknown>((resume) => {
          client.callTool({ name: "echo", arguments: args }).then(
            (result) => resume(Effect.succeed(result)),
            (error: unknown) => resume(Effect.die(error))
          )
        })
        out.push(performance.now() - start)
      }
    })
  // warm both servers and both clients
  yield* directRound(WARMUP, [])
  yield* fiberRound(WARMUP, [])
  yield* bridgedRound(WARMUP, [])
  const direct: Array<number> = []
  const fiber: Array<number> = []
  const bridged: Array<number> = []
  const directCpu: Array<number> = []
  const fiberCpu: Array<number> = []
  const bridgedCpu: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    yield* timed(directRound(Math.ceil(N / ROUNDS), direct), directCpu)
    yield* timed(fiberRound(Math.ceil(N / ROUNDS), fiber), fiberCpu)
    yield* timed(bridgedRound(Math.ceil(N / ROUNDS), bridged), bridgedCpu)
  }
  return {
    anchor: median(direct),
    floor: median(fiber),
    ours: median(bridged),
    anchorCpu: (directCpu[0] ?? 0) / direct.length,
    floorCpu: (fiberCpu[0] ?? 0) / fiber.length,
    oursCpu: (bridgedCpu[0] ?? 0) / bridged.length
  }
}).pipe(
  Effect.scoped,
  Effect.provide(
    McpBridge.layer({ bench: server }).pipe(
      Layer.provideMerge(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(root) }))
    )
  )
)

const { anchor, anchorCpu, floor, floorCpu, ours, oursCpu } = await Effect.runPromise(program)
console.log(
  `MCP echo on server-everything, ${N} sequential calls each, ${ROUNDS} rounds taking turns, library from ${from}/:`
)
console.log(`  direct SDK client:   ${(anchor * 1000).toFixed(0)} µs median, ${anchorCpu.toFixed(0)} µs CPU per call`)
console.log(
  `  same, from a fiber:  ${(floor * 1000).toFixed(0)} µs median, ${floorCpu.toFixed(0)} µs CPU per call ` +
    `(${(floor / anchor).toFixed(2)}x: Effect.async around the SDK call, the floor of an Effect bridge)`
)
console.log(`  bridge + executor:   ${(ours * 1000).toFixed(0)} µs median, ${oursCpu.toFixed(0)} µs CPU per call`)
console.log(`  ratio: ${(ours / anchor).toFixed(2)}x (goal <= 1.1x); CPU ratio ${(oursCpu / anchorCpu).toFixed(2)}x`)
