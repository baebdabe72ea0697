/**
 * `effect-tool-system mcp --http HOST:PORT --sessions` (`runMcpCommand`'s `sessions`): a 2025
 * client gets a session and is asked to confirm `write_file`, which then writes; `--sessions`
 * without `--http` fails the command, saying why.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Exit, Fiber } from "effect"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { runMcpCommand } from "../../../src/tools/mcp/stdio.js"
import { tempDir } from "../../helpers/tempDir.js"
import { replyText as text } from "./replyText.js"

/** A port free a moment ago on 127.0.0.1. */
const freePort = Effect.callback<number>((resume) => {
  const probe = Net.createServer().listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

describe("mcp --http HOST:PORT --sessions", () => {
  it.live("--sessions without --http, or --session-route without --sessions, fails the command, saying why", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(runMcpCommand({ sessions: true }).pipe(Effect.provide(NodeServices.layer)))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(String(exit)).toContain("--sessions serves over HTTP only")
      const routeAlone = yield* Effect.exit(runMcpCommand({ http: "127.0.0.1:0", sessionRoute: "a" }).pipe(Effect.provide(NodeServices.layer)))
      expect(String(routeAlone)).toContain("--session-route names this process's sessions: add --sessions")
    }))

  it.live("a 2025-11-25 client gets a session and is asked to confirm a write, which then runs", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-sessions-cmd-")
      const port = yield* freePort
      const serving = yield* runMcpCommand({ http: `127.0.0.1:${port}`, workspace: ws, sessions: true }).pipe(
        Effect.provide(NodeServices.layer),
        Effect.forkChild
      )
      const url = new URL(`http://127.0.0.1:${port}/mcp`)
      const connect = Effect.gen(function*() {
        const client = new Client(
          { name: "cmd", version: "1.0.0" },
          { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "legacy" } }
        )
        const questions: Array<string> = []
        client.setRequestHandler("elicitation/create", (request) => {
          questions.push(request.params.message)
          return Promise.resolve({ action: "accept", content: { confirm: true } })
        })
        const transport = new StreamableHTTPClientTransport(url)
        const connected = yield* Effect.promise(() => client.connect(transport).then(() => true, () => false))
        return connected ? { client, transport, questions } : undefined
      })
      // the port opens once the system is built
      let session = yield* connect
      for (let i = 0; i < 100 && session === undefined; i++) {
        yield* Effect.sleep("20 millis")
        session = yield* connect
      }
      expect(session).toBeDefined()
      if (session === undefined) return
      expect(session.transport.sessionId).toMatch(/^[\w-]{43}$/)
      const reply = yield* Effect.promise(() =>
        session.client.callTool({ name: "write_file", arguments: { filepath: "asked.txt", content: "yes" } })
      )
      expect(reply.isError, text(reply)).not.toBe(true)
      expect(session.questions).toHaveLength(1)
      expect(session.questions[0]).toContain("write_file")
      expect(Fs.readFileSync(Path.join(ws, "asked.txt"), "utf8")).toBe("yes")
      yield* Effect.promise(() => session.client.close())
      yield* Fiber.interrupt(serving)
    }))
})
