/**
 * `effect-tool-system mcp --http HOST:PORT` (`runMcpCommand`'s `http`): the address it takes, and
 * the registry served there to an SDK v2 client until the command is interrupted.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Exit, Fiber } from "effect"
import * as Net from "node:net"
import { parseHostPort, runMcpCommand } from "../../../src/tools/mcp/stdio.js"
import { tempDir } from "../../helpers/tempDir.js"

/** A port free a moment ago on 127.0.0.1. */
const freePort = Effect.callback<number>((resume) => {
  const probe = Net.createServer().listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

describe("mcp --http HOST:PORT", () => {
  it("takes HOST:PORT and [IPv6]:PORT, and says what it wants otherwise", () => {
    expect(parseHostPort("127.0.0.1:3000")).toEqual({ host: "127.0.0.1", port: 3000 })
    expect(parseHostPort("[::1]:8080")).toEqual({ host: "::1", port: 8080 })
    expect(parseHostPort("localhost")).toMatch(/^--http wants HOST:PORT/)
    expect(parseHostPort("127.0.0.1:99999")).toMatch(/^--http wants HOST:PORT/)
  })

  it.live("a bad address fails the command with McpServeError", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(runMcpCommand({ http: "nowhere" }).pipe(Effect.provide(NodeServices.layer)))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(String(exit)).toContain("--http wants HOST:PORT")
    }))

  it.live("serves the builtins over HTTP on 127.0.0.1 until interrupted", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-http-cmd-")
      const port = yield* freePort
      const serving = yield* runMcpCommand({ http: `127.0.0.1:${port}`, workspace: ws }).pipe(
        Effect.provide(NodeServices.layer),
        Effect.forkChild
      )
      const client = new Client({ name: "cmd", version: "1.0.0" })
      const url = new URL(`http://127.0.0.1:${port}/mcp`)
      // the port opens once the system is built
      let connected = false
      for (let i = 0; i < 100 && !connected; i++) {
        connected = yield* Effect.promise(() => client.connect(new StreamableHTTPClientTransport(url)).then(() => true, () => false))
        if (!connected) yield* Effect.sleep("20 millis")
      }
      expect(connected).toBe(true)
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.some((t) => t.name === "read_file")).toBe(true)
      yield* Effect.promise(() => client.close())
      yield* Fiber.interrupt(serving)
      const refused = yield* Effect.promise(() =>
        fetch(url, { method: "POST", body: "{}" }).then(() => "answered", () => "refused")
      )
      expect(refused).toBe("refused")
    }))

  it.live("--rate-limit TOOL=RPM limits a served tool; a name that is no builtin or ported tool fails the command", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-http-limit-")
      const port = yield* freePort
      const serving = yield* runMcpCommand({ http: `127.0.0.1:${port}`, workspace: ws, rateLimits: { calculator: 2 } }).pipe(
        Effect.provide(NodeServices.layer),
        Effect.forkChild
      )
      const client = new Client({ name: "cmd", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } })
      const url = new URL(`http://127.0.0.1:${port}/mcp`)
      let connected = false
      for (let i = 0; i < 100 && !connected; i++) {
        connected = yield* Effect.promise(() => client.connect(new StreamableHTTPClientTransport(url)).then(() => true, () => false))
        if (!connected) yield* Effect.sleep("20 millis")
      }
      expect(connected).toBe(true)
      const answers = yield* Effect.forEach([1, 2, 3], (n) =>
        Effect.promise(() => client.callTool({ name: "calculator", arguments: { expression: `${n} + 1` } })))
      expect(answers.map((a) => a.isError === true)).toEqual([false, false, true])
      expect(JSON.stringify(answers[2]?.content)).toContain("RATE_LIMITED")
      yield* Effect.promise(() => client.close())
      yield* Fiber.interrupt(serving)

      const exit = yield* Effect.exit(
        runMcpCommand({ http: "127.0.0.1:0", workspace: ws, rateLimits: { nope: 1 } }).pipe(Effect.provide(NodeServices.layer))
      )
      expect(String(exit)).toContain("--rate-limit: no builtin or ported tool nope")
    }))
})
