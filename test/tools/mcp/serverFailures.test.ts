/**
 * `serveMcp` when something around a call fails: a client whose answer to a confirmation
 * question fails (the call is refused, the failure logged), a call that dies for another
 * reason than a workspace escape (an error result, logged, and the server keeps serving), a
 * transport that cannot start (`McpServeError` with its reason) or cannot close (logged; the
 * serving fiber still ends).
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { type ElicitResult, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Exit, Fiber, Layer, LogLevel, Schema } from "effect"
import { Tool, ToolSystem, Workspace } from "../../../src/index.js"
import { replyText as text } from "./replyText.js"
import { serveMcp } from "../../../src/tools/mcp/serve.js"
import { McpServeError } from "../../../src/tools/mcp/server.js"
import { recordingLogsWith, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { echoTool as echo, eventually, makeDeleteThing, makeForever } from "./helpers.js"

const { deletions, tool: deleteThing } = makeDeleteThing()

const { started, stopped, tool: forever } = makeForever()

const quitter = Tool.make("quitter", {
  description: "Interrupts itself",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.andThen(Effect.sleep("10 millis"), Effect.interrupt)
})

/** The Node system, except that a call of `boom` dies (as no call through the real executor can). */
const dyingSystem = (ws: string) =>
  Layer.effect(
    ToolSystem,
    Effect.map(ToolSystem, (system) => ({
      ...system,
      execute: (name: string, args: unknown, options?: Parameters<typeof system.execute>[2]) =>
        name === "boom" ? Effect.die(new Error("the executor broke")) : system.execute(name, args, options)
    }))
  ).pipe(Layer.provideMerge(ToolSystem.layerNode({ builtins: false, tools: [deleteThing, echo, forever, quitter], workspace: Workspace.layerFixed(ws) })))

/** How a client answers a confirmation question. */
type Elicit = (request: unknown, extra: { readonly signal: AbortSignal }) => Promise<ElicitResult>

/** A client on the in-memory pair's client side; `elicit` (when given) answers its questions. */
const connect = (clientSide: Transport, elicit?: Elicit) =>
  Effect.gen(function*() {
    const client = new Client({ name: "c", version: "1.0.0" }, { capabilities: elicit === undefined ? {} : { elicitation: { form: {} } } })
    if (elicit !== undefined) client.setRequestHandler(ElicitRequestSchema, elicit)
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () => Effect.promise(() => client.close()))
    const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))
    return { call, client }
  })

/** `dyingSystem` served on an in-memory pair for the scope, and a client of it (see `connect`). */
const served = (ws: string, elicit?: Elicit) =>
  Effect.gen(function*() {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* serveMcp(serverSide).pipe(Effect.provide(dyingSystem(ws)), Effect.forkScoped)
    return yield* connect(clientSide, elicit)
  })

// live clock: the MCP SDK's real client and server on an in-memory transport (its request timeouts are Node timers)
describe("serveMcp when something fails", () => {
  it.live("a client whose answer to the confirmation question fails: the call is refused, the failure logged", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-fail-")
      const before = deletions()
      const [reply, lines] = yield* recordingLogsWith(() =>
        Effect.gen(function*() {
          const { call } = yield* served(ws, () => Promise.reject(new Error("no screen to ask on")))
          return yield* call("delete_thing", { id: 7 })
        })
      )
      expect(reply.isError).toBe(true)
      expect(text(reply)).toMatch(/^CONFIRMATION_REQUIRED: /)
      expect(deletions()).toBe(before)
      const warning = lines.find((line) => textOf(line).startsWith("MCP confirmation of \"delete_thing\" failed:"))
      expect(warning?.level).toBe("Warn")
      expect(warning && textOf(warning)).toContain("no screen to ask on")
    }))

  it.live("a call that dies (not an escape) is an error result, logged with its cause; the server keeps serving", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-fail-")
      const [[died, after], lines] = yield* recordingLogsWith(() =>
        Effect.gen(function*() {
          const { call } = yield* served(ws)
          return [yield* call("boom", {}), yield* call("echo", { text: "still here" })] as const
        })
      )
      expect(died).toMatchObject({ isError: true })
      // the defect's message stays in the server's log, not in what the client sees
      expect(text(died)).toBe("TOOL_ERROR: the call failed unexpectedly")
      expect(after.isError).toBeUndefined()
      expect(text(after)).toBe("still here")
      const logged = lines.find((line) => textOf(line) === "MCP call of \"boom\" died")
      expect(logged?.level).toBe("Error")
      expect(String(logged?.cause)).toContain("the executor broke")
    }))

  it.live("a call the client cancels is interrupted, not logged as died; the server keeps serving", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-fail-")
      const before = stopped()
      const startedBefore = started()
      const [after, lines] = yield* recordingLogsWith(() =>
        Effect.gen(function*() {
          const { call, client } = yield* served(ws)
          const controller = new AbortController()
          const cancelled = client.callTool({ name: "forever", arguments: {} }, undefined, { signal: controller.signal })
          // cancelled once its handler runs (was: after a real 100 ms)
          expect(yield* eventually(() => started() > startedBefore)).toBe(true)
          controller.abort("enough")
          yield* Effect.promise(() => cancelled.then(() => "answered", () => "rejected"))
          // the server's cancellation reaches the handler
          expect(yield* eventually(() => stopped() > before)).toBe(true)
          return yield* call("echo", { text: "next" })
        })
      )
      expect(stopped()).toBe(before + 1)
      expect(text(after)).toBe("next")
      expect(lines.filter((line) => line.level === "Error").map(textOf)).toEqual([])
    }))

  it.live("a call the client cancels while its confirmation question is open: the question is withdrawn, nothing runs", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-fail-")
      const before = deletions()
      let withdrawn = false
      const [after, lines] = yield* recordingLogsWith(() =>
        Effect.gen(function*() {
          // a client that says no to the first question (the SDK's client cannot cancel the request
          // numbered 0), and never answers the next, until it is cancelled
          let questions = 0
          const { call, client } = yield* served(ws, (_request, extra) =>
            questions++ === 0
              ? Promise.resolve({ action: "decline" })
              : new Promise<never>((_, reject) =>
                extra.signal.addEventListener("abort", () => {
                  withdrawn = true
                  reject(new Error("withdrawn"))
                })
              ))
          expect(text(yield* call("delete_thing", { id: 8 }))).toMatch(/^CONFIRMATION_REQUIRED: /)
          const controller = new AbortController()
          const cancelled = client.callTool({ name: "delete_thing", arguments: { id: 9 } }, undefined, { signal: controller.signal })
          // cancelled once its question is asked (was: after a real 100 ms)
          expect(yield* eventually(() => questions === 2)).toBe(true)
          controller.abort("never mind")
          yield* Effect.promise(() => cancelled.then(() => "answered", () => "rejected"))
          expect(yield* eventually(() => withdrawn)).toBe(true)
          return yield* call("echo", { text: "next" })
        })
      )
      expect(deletions()).toBe(before)
      expect(text(after)).toBe("next")
      expect(lines.filter((line) => line.level === "Error").map(textOf)).toEqual([])
    }))

  it.live("a call whose handler interrupts itself is answered with an error, not logged as died", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-fail-")
      const [[answer, after], lines] = yield* recordingLogsWith(() =>
        Effect.gen(function*() {
          const { call } = yield* served(ws)
          const answer = yield* Effect.exit(call("quitter", {}))
          return [answer, yield* call("echo", { text: "next" })] as const
        })
      )
      // an interruption has no result to give: the request fails as a whole
      expect(Exit.isFailure(answer)).toBe(true)
      expect(text(after)).toBe("next")
      expect(lines.filter((line) => line.level === "Error").map(textOf)).toEqual([])
    }))

  it.live("a transport that cannot start fails serveMcp with McpServeError naming why", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-fail-")
      const broken: Transport = {
        start: () => Promise.reject(new Error("the port is taken")),
        send: () => Promise.resolve(),
        close: () => Promise.resolve()
      }
      const exit = yield* Effect.exit(serveMcp(broken).pipe(Effect.provide(dyingSystem(ws))))
      expect(exit).toStrictEqual(Exit.fail(new McpServeError({ reason: "the port is taken" })))
      // a caller can catch it by its tag
      const caught = yield* serveMcp(broken).pipe(
        Effect.provide(dyingSystem(ws)),
        Effect.as("served"),
        Effect.catchTag("McpServeError", (error) => Effect.succeed(`caught: ${error.reason}`))
      )
      expect(caught).toBe("caught: the port is taken")
      if (Exit.isFailure(exit)) expect(String(exit.cause)).toContain("Cannot serve MCP: the port is taken")
    }))

  it.live("a transport that cannot close: serving still ends when interrupted, the failure logged", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-fail-")
      const [, lines] = yield* recordingLogsWith(() =>
        Effect.gen(function*() {
          const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
          // the in-memory transport, but for its close; what the client sent before the start waits for it
          const stuck: Transport = {
            start: () => {
              serverSide.onmessage = (message) => stuck.onmessage?.(message)
              return serverSide.start()
            },
            send: (message) => serverSide.send(message),
            close: () => Promise.reject(new Error("the socket is wedged"))
          }
          const serving = yield* serveMcp(stuck).pipe(Effect.provide(dyingSystem(ws)), Effect.forkChild)
          // a client's first call is answered: the server is connected
          const { call } = yield* connect(clientSide)
          expect(text(yield* call("echo", { text: "up" }))).toBe("up")
          yield* Fiber.interrupt(serving)
          const exit = yield* Fiber.await(serving)
          expect(Exit.hasInterrupts(exit)).toBe(true)
        })
      )
      const warning = lines.find((line) => textOf(line).startsWith("Closing the MCP server failed:"))
      expect(warning?.level).toBe("Warn")
      expect(warning && textOf(warning)).toContain("the socket is wedged")
    }))
})
