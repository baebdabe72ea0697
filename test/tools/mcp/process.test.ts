/**
 * A server process on its own (`startServerProcess`), against real child processes that are
 * not MCP servers (`cat`, `sh`, `node -e`): the command run as configured, the transport's
 * messages both ways and its request ids, how a stop ends a process that cooperates, one
 * that ignores its stdin's end and one that ignores SIGTERM too, a process that ends or
 * closes its pipes by itself, and the stderr tail kept for messages. 600 MB of stderr drained
 * into that tail is in `process.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { type JSONRPCMessage, SdkErrorCode } from "@modelcontextprotocol/client"
import { Effect, Fiber } from "effect"
import type { McpStdioServerConfig } from "../../../src/tools/mcp/config.js"
import type { ServerProcess } from "../../../src/tools/mcp/process.js"
import { node, start, until } from "./processHarness.js"

const sh = (script: string): McpStdioServerConfig => ({ command: "sh", args: ["-c", script] })

/** Starts the transport, recording what it hands on. */
const listen = (server: ServerProcess) =>
  Effect.promise(async () => {
    const seen = { messages: [] as Array<JSONRPCMessage>, errors: [] as Array<Error>, closed: 0 }
    server.transport.onmessage = (message) => void seen.messages.push(message)
    server.transport.onerror = (error) => void seen.errors.push(error)
    server.transport.onclose = () => void seen.closed++
    await server.transport.start()
    return seen
  })

const send = (server: ServerProcess, message: JSONRPCMessage) =>
  Effect.tryPromise({ try: () => server.transport.send(message), catch: (error) => error })

// live clock: real child processes; a stop's grace periods run on the live clock (process.ts liveClock)
describe("startServerProcess", () => {
  it.live("runs a command without arguments as given; its messages come back through the transport", () =>
    Effect.gen(function*() {
      // cat with no arguments copies its stdin to its stdout: our own messages come back
      const server = yield* start({ command: "cat" })
      const seen = yield* listen(server)
      expect(server.endedOnItsOwn()).toBe(false)
      yield* send(server, { jsonrpc: "2.0", id: 7, method: "tools/list", params: { cursor: "c1" } })
      yield* send(server, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } })
      const back = yield* until(() => seen.messages, (messages) => messages.length === 2)
      expect(back.map((message) => "method" in message && message.method)).toEqual(["tools/list", "notifications/cancelled"])
      expect(seen.errors).toEqual([])
    }))

  it.live("a stop of a process that ends when its stdin does waits for it: no signal", () =>
    Effect.gen(function*() {
      // ends a little after its stdin's end, well within the grace period; stopped once it runs its script, as a
      // node that is still starting up (over the grace period on a loaded machine) would get SIGTERM rightly
      const server = yield* start(node(
        `process.stdin.resume(); process.stdin.on("end", () => setTimeout(() => process.exit(0), 50)); process.stderr.write("ready\\n")`
      ))
      yield* listen(server)
      yield* until(server.stderrTail, (tail) => tail === "ready")
      yield* server.stop
      expect(yield* server.exited).toBe("exited with code 0")
      expect(server.endedOnItsOwn()).toBe(false)
      const refused = yield* Effect.flip(send(server, { jsonrpc: "2.0", id: 1, method: "ping" }))
      expect(String(refused)).toContain("Not connected")
    }))

  it.live("a process that ignores its stdin's end gets SIGTERM after the grace period", () =>
    Effect.gen(function*() {
      const server = yield* start(node(`setInterval(() => {}, 1000); process.stderr.write("ready\\n")`))
      yield* until(server.stderrTail, (tail) => tail === "ready")
      const stopping = yield* Effect.forkChild(server.stop)
      // the stop has begun (its stdin is ended, maybe not yet flushed): nothing more is sent to it
      yield* Effect.yieldNow
      const refused = yield* Effect.flip(send(server, { jsonrpc: "2.0", id: 1, method: "ping" }).pipe(Effect.timeout("1 second")))
      expect(String(refused)).toContain("Not connected")
      yield* Fiber.await(stopping)
      expect(yield* server.exited).toBe("ended by a signal (SIGTERM)")
    }))

  it.live("a process that shuts down on SIGTERM gets the grace period to do it", () =>
    Effect.gen(function*() {
      const server = yield* start(node(
        `process.on("SIGTERM", () => setTimeout(() => process.exit(0), 100)); setInterval(() => {}, 1000); process.stderr.write("ready\\n")`
      ))
      yield* until(server.stderrTail, (tail) => tail === "ready")
      yield* server.stop
      expect(yield* server.exited).toBe("exited with code 0")
    }))

  it.live("a process that ignores SIGTERM too gets SIGKILL", () =>
    Effect.gen(function*() {
      const server = yield* start(node(`process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); process.stderr.write("ready\\n")`))
      yield* until(server.stderrTail, (tail) => tail === "ready")
      yield* server.stop
      expect(yield* server.exited).toBe("ended by a signal (SIGKILL)")
    }))

  it.live("a line that is not a JSON-RPC message is reported and the next line is read; an answer to no call of ours goes on to the SDK", () =>
    Effect.gen(function*() {
      const server = yield* start(sh(
        `printf 'not json\\n{"jsonrpc":"2.0","id":"ets-1"}\\r\\n{"jsonrpc":"2.0","id":"ets-9","result":{}}\\r\\n{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\\n'; exec sleep 30`
      ))
      const seen = yield* listen(server)
      const messages = yield* until(() => seen.messages, (m) => m.length === 2)
      // checked with the SDK's schema (as parsed: the CRLF's CR is gone)
      expect(messages).toEqual([
        { jsonrpc: "2.0", id: "ets-9", result: {} },
        { jsonrpc: "2.0", method: "notifications/tools/list_changed" }
      ])
      expect(seen.errors).toHaveLength(2)
      expect(seen.errors[0]).toBeInstanceOf(SyntaxError)
      expect(seen.errors[1]?.message).toMatch(/^not a JSON-RPC error response/)
    }))

  it.live("a process that exits by itself: its code, its last words, and that it ended on its own", () =>
    Effect.gen(function*() {
      const server = yield* start(sh(`echo "going away" >&2; exit 3`))
      const seen = yield* listen(server)
      expect(yield* server.exited).toBe("exited with code 3")
      yield* until(() => seen.closed, (closed) => closed === 1)
      expect(server.endedOnItsOwn()).toBe(true)
      expect(server.stderrTail()).toBe("going away")
    }))

  it.live("a process that closes its stdout but runs on: the transport closes and sends nothing more", () =>
    Effect.gen(function*() {
      const server = yield* start(sh(`exec 1>&-; exec sleep 30`))
      const seen = yield* listen(server)
      expect(yield* until(() => seen.closed, (closed) => closed === 1)).toBe(1)
      expect(server.endedOnItsOwn()).toBe(true)
      const refused = yield* Effect.flip(send(server, { jsonrpc: "2.0", id: 1, method: "ping" }))
      expect(String(refused)).toContain("Not connected")
    }))

  it.live("a message larger than the pipe's buffer is sent once the process has read it (the send waits for drain)", () =>
    Effect.gen(function*() {
      // reads nothing for a while, then copies its stdin to its stdout
      const server = yield* start(sh(`sleep 0.3; exec cat`))
      const seen = yield* listen(server)
      const big = "x".repeat(4 * 1024 * 1024)
      yield* send(server, { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: big } })
      const back = yield* until(() => seen.messages, (messages) => messages.length === 1)
      expect(back).toHaveLength(1)
      expect(JSON.stringify(back[0]).length).toBeGreaterThan(big.length)
    }))

  it.live("a call of the bridge's own table after a stop is answered at once: the connection is closed", () =>
    Effect.gen(function*() {
      const server = yield* start({ command: "cat" })
      const seen = yield* listen(server)
      yield* server.stop
      // stopped, not ended by itself
      yield* until(() => seen.closed, (closed) => closed === 1)
      expect(server.endedOnItsOwn()).toBe(false)
      const answers: Array<unknown> = []
      const id = server.calls.call({ name: "echo", arguments: {} }, 60_000, (answer) => answers.push(answer))
      expect(id).toBeUndefined()
      expect(answers).toEqual([{ ok: false, error: expect.objectContaining({ code: SdkErrorCode.ConnectionClosed }) }])
    }))

  it.live("a process that closes its stdin: writing to it is an error the transport reports, not a crash", () =>
    Effect.gen(function*() {
      const server = yield* start(sh(`exec 0<&-; echo closed >&2; exec sleep 30`))
      const seen = yield* listen(server)
      yield* until(server.stderrTail, (tail) => tail === "closed")
      for (let i = 0; i < 20 && seen.errors.length === 0; i++) {
        yield* send(server, { jsonrpc: "2.0", id: i, method: "ping" }).pipe(Effect.timeout("200 millis"), Effect.ignore)
        yield* Effect.sleep("20 millis")
      }
      expect(seen.errors.map((error) => ("code" in error ? error.code : error.message))).toContain("EPIPE")
    }))

  it.live("stderr: a character split across chunks is kept whole", () =>
    Effect.gen(function*() {
      const server = yield* start(
        node(`process.stderr.write(Buffer.from([0xc3])); setTimeout(() => process.stderr.write(Buffer.from([0xa9, 0x0a])), 100)`)
      )
      yield* server.exited
      expect(yield* until(server.stderrTail, (tail) => tail !== "")).toBe("é")
    }))

  it.live("stderr: the tail says when more came before it, even when what it shows is short", () =>
    Effect.gen(function*() {
      // 2,048 characters (the tail's size) in one write: nothing is cut
      const exact = yield* start(node(`process.stderr.write("\\n".repeat(2041) + "the end")`))
      yield* exact.exited
      expect(yield* until(exact.stderrTail, (tail) => tail !== "")).toBe("the end")
      // one more, and the start is cut: the tail starts with "…"
      const over = yield* start(node(`process.stderr.write("x" + "\\n".repeat(2041) + "the end")`))
      yield* over.exited
      expect(yield* until(over.stderrTail, (tail) => tail !== "")).toBe("…the end")
    }))
})
