/**
 * The MCP server over Streamable HTTP on loopback (issue 50): the median of sequential `echo`
 * calls by an SDK v2 client (`@modelcontextprotocol/client`'s `Client` over its
 * `StreamableHTTPClientTransport`) on 127.0.0.1, to
 *
 * - the anchor: a bare SDK v2 server, `McpServer` with one `echo` tool whose input schema is a raw
 *   JSON Schema (`fromJsonSchema`), served by `createMcpHandler` + `toNodeHandler` on `node:http`,
 *   a fresh server per request (stateless, as `serveMcpHttp` is); and
 * - ours: the same tool registered in a `ToolSystem` (no builtins), served by `serveMcpHttp`
 *   (argument check with ajv, every gate, the guard's deadline, the audit layer's default, the
 *   `Host`/`Origin` checks and the concurrency cap),
 *
 * in both protocol eras: 2025-11-25 (`versionNegotiation: legacy`, the stateless 2025 leg) and
 * 2026-07-28 (`auto`: the per-request `_meta` envelope). Both servers and all four clients run in
 * this process, so a call's time holds the client's and the server's work and the loopback
 * round trip; the ways take turns call by call (each first in turn), so the machine's drift
 * weighs on all of them alike. Goal: ours at most 1.2x the anchor, per era.
 *
 * Prints the medians, this process's CPU time per call (client and server), and the ratios.
 *
 * Run (bundled by esbuild first, as `bench/mcp.ts`, so the library runs as it ships):
 *
 *   esbuild bench/mcpHttp.ts --bundle --platform=node --format=esm --packages=external --target=node22 \
 *     --outfile=bench/dist/mcpHttp.mjs --log-level=warning && node bench/dist/mcpHttp.mjs
 *
 * BENCH_CALLS (default 2000), BENCH_WARMUP (default 3000).
 *
 * Measured (2 shared CPUs, load 5-7, 2000 calls after 3000, four runs): 2025-11-25 1.08x, 1.15x,
 * 1.11x, 1.10x; 2026-07-28 0.96x, 0.92x, 0.98x, 0.97x (CPU ratios 0.92x-1.11x); about 1.1-1.4 ms a
 * call either way. In the 2026 era ours is a little faster than the anchor, which is `McpServer`
 * with `registerTool` and `fromJsonSchema` (the high-level API an SDK user writes); in the 2025 era
 * ours takes about 0.1 ms a call more. Neither difference was profiled: both are
 * within the goal.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server"
import { Effect, Schema } from "effect"
import * as Http from "node:http"
import * as os from "node:os"
import { Tool } from "../src/index.js"
import { ToolSystem } from "../src/services/ToolSystem.js"
import { Workspace } from "../src/services/Workspace.js"
import { serveMcpHttp } from "../src/tools/mcp/http.js"

const N = Number(process.env.BENCH_CALLS ?? 2000)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000)
const args = { message: "hello" }

type Era = "legacy" | "auto"
const eras: ReadonlyArray<Era> = ["legacy", "auto"]
const eraName = (era: Era) => (era === "legacy" ? "2025-11-25" : "2026-07-28")

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

/** The anchor: a bare SDK v2 server on 127.0.0.1 (a free port); its URL, and how to stop it. */
const bareSdkServer = () =>
  new Promise<{ readonly url: string; readonly close: () => Promise<void> }>((resolve) => {
    const inputSchema = fromJsonSchema<{ message: string }>({
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
      additionalProperties: false
    })
    const build = () => {
      const server = new McpServer({ name: "bare", version: "1.0.0" })
      server.registerTool(
        "echo",
        { description: "Says its message back", inputSchema, annotations: { readOnlyHint: true } },
        ({ message }) => ({ content: [{ type: "text", text: message }] })
      )
      return server
    }
    const handler = createMcpHandler(build, { legacy: "stateless" })
    const node = toNodeHandler(handler)
    const http = Http.createServer((req, res) =>
      void node({
        [Symbol.asyncIterator]: () => req[Symbol.asyncIterator](),
        headers: req.headers,
        ...(req.method === undefined ? {} : { method: req.method }),
        ...(req.url === undefined ? {} : { url: req.url })
      }, res)
    )
    http.listen(0, "127.0.0.1", () => {
      const address = http.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        close: () =>
          handler.close().then(() =>
            new Promise<void>((done) => {
              http.close(() => done())
              http.closeAllConnections()
            })
          )
      })
    })
  })

const echo = Tool.make("echo", {
  description: "Says its message back",
  parameters: Schema.Struct({ message: Schema.String }),
  readOnly: true,
  handler: ({ message }) => Effect.succeed(message)
})

/** One way of making the call: a client, its latencies (ms) and this process's CPU time (µs). */
interface Way {
  readonly client: Client
  readonly latency: Array<number>
  cpu: number
}

const connect = async (url: string, era: Era): Promise<Way> => {
  const client = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode: era } })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  const expected = era === "legacy" ? "legacy" : "modern"
  if (client.getProtocolEra() !== expected) throw new Error(`${url}: spoke ${client.getProtocolEra()}, not ${expected}`)
  return { client, latency: [], cpu: 0 }
}

const turn = async (way: Way, record: boolean) => {
  const cpu = process.cpuUsage()
  const start = performance.now()
  const result = await way.client.callTool({ name: "echo", arguments: args })
  const latency = performance.now() - start
  const used = process.cpuUsage(cpu)
  const first = Array.isArray(result.content) ? result.content[0] : undefined
  if (result.isError === true || first?.type !== "text" || first.text !== "hello") {
    throw new Error(`unexpected answer: ${JSON.stringify(result)}`)
  }
  if (!record) return
  way.latency.push(latency)
  way.cpu += used.user + used.system
}

const program = Effect.gen(function*() {
  const ours = yield* serveMcpHttp({})
  const bare = yield* Effect.acquireRelease(Effect.promise(bareSdkServer), (server) => Effect.promise(server.close))
  return yield* Effect.promise(async () => {
    const ways = new Map<Era, { readonly anchor: Way; readonly ours: Way }>()
    for (const era of eras) ways.set(era, { anchor: await connect(bare.url, era), ours: await connect(ours.url, era) })
    const all = [...ways.values()].flatMap(({ anchor, ours }) => [anchor, ours])
    for (let i = 0; i < WARMUP + N; i++) {
      for (let k = 0; k < all.length; k++) await turn(all[(i + k) % all.length]!, i >= WARMUP)
    }
    for (const way of all) await way.client.close()
    return ways
  })
}).pipe(
  Effect.scoped,
  Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [echo], workspace: Workspace.layerFixed(os.tmpdir()) }))
)

const ways = await Effect.runPromise(program)
const row = (label: string, way: Way, anchor: Way) => {
  const ms = median(way.latency)
  console.log(
    `  ${label.padEnd(34)}${(ms * 1000).toFixed(0).padStart(5)} µs median, ${(way.cpu / N).toFixed(0)} µs CPU per call` +
      ` (${(ms / median(anchor.latency)).toFixed(2)}x)`
  )
}
console.log(
  `MCP echo over Streamable HTTP on 127.0.0.1, ${N} sequential calls each way (after ${WARMUP}), the ways taking ` +
    `turns call by call, SDK v2 client, library bundled from src/ (Effect 4, Node ${process.versions.node}):`
)
const ratios: Array<string> = []
for (const [era, { anchor, ours }] of ways) {
  console.log(`  ${eraName(era)}:`)
  row("  bare SDK v2 server (anchor)", anchor, anchor)
  row("  serveMcpHttp + executor", ours, anchor)
  ratios.push(
    `${eraName(era)} ${(median(ours.latency) / median(anchor.latency)).toFixed(2)}x ` +
      `(CPU ${(ours.cpu / anchor.cpu).toFixed(2)}x)`
  )
}
console.log(`  ratio: ${ratios.join(", ")} (goal <= 1.2x)`)
