/**
 * Latency of a bridged MCP tool: the median of sequential `echo` calls through our bridge
 * and executor (`ToolSystem.execute("bench__echo", ...)`: argument check with ajv, every
 * gate, the proxy, the SDK client over our process transport) beside the same calls made
 * straight with the SDK's `Client` over its own `StdioClientTransport`, to a second copy of
 * the same server, in one run. Goal: at most 1.1x the direct call. Prints the ratio.
 *
 * The server is `@modelcontextprotocol/server-everything` when it is installed, else the
 * test suite's tiny SDK echo server. Run: `npx tsx bench/mcp.ts` (BENCH_CALLS, default 1000).
 * The library is loaded from `dist/` when it was built with the bridge (as it ships), else
 * from `src/` (under tsx, esbuild's keep-names wrappers add to every call of the executor).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as Library from "../src/index.js"
import type * as Bridge from "../src/services/McpBridge.js"

const N = Number(process.env.BENCH_CALLS ?? 1000)
const WARMUP = 300
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const built = fs.existsSync(path.join(root, "dist/services/McpBridge.js"))
const from = built ? "dist" : "src"
const { ToolSystem, Workspace }: typeof Library = await import(path.join(root, from, "index.js"))
const { McpBridge }: typeof Bridge = await import(path.join(root, from, "services/McpBridge.js"))
const everything = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
const useEverything = fs.existsSync(everything)
const server = useEverything
  ? { command: process.execPath, args: [everything, "stdio"], label: "server-everything" }
  : { command: process.execPath, args: [path.join(root, "test/tools/mcp/servers/echo.mjs")], label: "test echo server" }
const args = useEverything ? { message: "hello" } : { text: "hello" }

const median = (xs: Array<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

/** Rounds of calls, the two ways taking turns, so that drift on a busy machine hits both. */
const ROUNDS = 10

const program = Effect.gen(function*() {
  const system = yield* ToolSystem
  const client = new Client({ name: "bench", version: "1.0.0" })
  yield* Effect.acquireRelease(
    Effect.promise(() =>
      client.connect(new StdioClientTransport({ command: server.command, args: server.args, stderr: "ignore" }))
    ),
    () => Effect.promise(() => client.close())
  )
  const directCall = () => client.callTool({ name: "echo", arguments: args })
  const directRound = (n: number, out: Array<number>) =>
    Effect.promise(async () => {
      for (let i = 0; i < n; i++) {
        const start = performance.now()
        await directCall()
        out.push(performance.now() - start)
      }
    })
  const bridgedRound = (n: number, out: Array<number>) =>
    Effect.gen(function*() {
      for (let i = 0; i < n; i++) {
        const start = performance.now()
        const r = yield* system.execute("bench__echo", args, { confirm: true })
        out.push(performance.now() - start)
        if (!r.success) return yield* Effect.dieMessage(`bench__echo failed: ${r.error}`)
      }
    })
  // warm both servers and both clients
  yield* directRound(WARMUP, [])
  yield* bridgedRound(WARMUP, [])
  const direct: Array<number> = []
  const bridged: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    yield* directRound(Math.ceil(N / ROUNDS), direct)
    yield* bridgedRound(Math.ceil(N / ROUNDS), bridged)
  }
  return { anchor: median(direct), ours: median(bridged) }
}).pipe(
  Effect.scoped,
  Effect.provide(
    McpBridge.layer({ bench: { command: server.command, args: [...server.args] } }).pipe(
      Layer.provideMerge(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(root) }))
    )
  )
)

const { anchor, ours } = await Effect.runPromise(program)
console.log(
  `MCP echo on the ${server.label}, ${N} sequential calls each, ${ROUNDS} rounds taking turns (median), library from ${from}/:`
)
console.log(`  direct SDK client:   ${(anchor * 1000).toFixed(0)} µs`)
console.log(`  bridge + executor:   ${(ours * 1000).toFixed(0)} µs`)
console.log(`  ratio: ${(ours / anchor).toFixed(2)}x (goal <= 1.1x)`)
