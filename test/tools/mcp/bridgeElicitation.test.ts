/**
 * A bridged server's tool asks the person a question (elicitation), through the application's
 * `McpElicitation` service: a 2025-11-25 stdio server (SDK 1.x, `elicitation/create` requests:
 * servers/asking.mjs) and a 2026-07-28 HTTP server (SDK v2, `input_required` results:
 * askingHttpServer.ts). Accept, decline and cancel reach the server as given; defaults fill the
 * fields left out; an answer that does not match the form, a hostile form, a flood of questions,
 * a question outside any call and endless `input_required` rounds are refused or capped; without
 * the service nothing changes; an interrupted or timed-out call withdraws its question.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Scope, Context } from "effect"
import { McpBridge, type McpBridgeOptions, type McpServersConfig } from "../../../src/services/McpBridge.js"
import {
  McpElicitation,
  type McpElicitationAnswer,
  type McpElicitationRequest
} from "../../../src/services/McpElicitation.js"
import { ToolSystem } from "../../../src/services/ToolSystem.js"
import { Workspace } from "../../../src/services/Workspace.js"
import { recordingLogsWith, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { askingHttpServer } from "./askingHttpServer.js"
import { eventually, fast, nodeServer } from "./helpers.js"

/** A bridged system whose servers' questions go to `elicit` (none: no service). */
const open = (
  servers: McpServersConfig,
  elicit?: (request: McpElicitationRequest) => Effect.Effect<McpElicitationAnswer>,
  options: McpBridgeOptions = fast
) =>
  Effect.gen(function*() {
    const ws = yield* tempDir("mcp-elicit-")
    const base = McpBridge.layer(servers, options).pipe(
      Layer.provideMerge(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(ws) }))
    )
    const layer = elicit === undefined ? base : base.pipe(Layer.provide(McpElicitation.layer(elicit)))
    const scope = yield* Effect.acquireRelease(Scope.make(), (scope, exit) => Scope.close(scope, exit))
    const context = yield* Layer.buildWithScope(layer, scope)
    return { system: Context.get(context, ToolSystem), bridge: Context.get(context, McpBridge) }
  })

const stdio = { asker: nodeServer("asking.mjs", [], { requiresConfirmation: false }) }

/** A service that answers by the question's message, and keeps every question. */
const scripted = (answers: Readonly<Record<string, McpElicitationAnswer>>) => {
  const asked: Array<McpElicitationRequest> = []
  const elicit = (request: McpElicitationRequest) =>
    Effect.sync((): McpElicitationAnswer => {
      asked.push(request)
      return answers[request.message] ?? { action: "cancel" }
    })
  return { asked, elicit }
}

const form = (message: string, properties: Record<string, unknown>, required?: ReadonlyArray<string>) => ({
  message,
  requestedSchema: { type: "object", properties, ...(required === undefined ? {} : { required }) }
})

/** The fields of SEP-1034's scenario, each with a default. */
const withDefaults = form("Defaults?", {
  name: { type: "string", default: "John Doe" },
  age: { type: "integer", default: 30 },
  score: { type: "number", default: 95.5 },
  status: { type: "string", enum: ["active", "inactive"], default: "active" },
  verified: { type: "boolean", default: true },
  tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, default: ["a", "c"] }
})
const defaults = { name: "John Doe", age: 30, score: 95.5, status: "active", verified: true, tags: ["a", "c"] }

/** What the 2025 fixture's `ask` got back (its output is `{ result }` or `{ error }`). */
const outcome = (output: unknown): unknown => JSON.parse(String(output))

describe("the bridge answers a server's questions (elicitation)", () => {
  it.live("2025 (stdio elicitation/create): accept, decline and cancel reach the server; the person sees who asks and for which tool", () =>
    Effect.gen(function*() {
      const name = form("Your name?", { name: { type: "string", title: "Name", minLength: 1 } }, ["name"])
      const { asked, elicit } = scripted({
        "Your name?": { action: "accept", content: { name: "Ada" } },
        "Decline me": { action: "decline" },
        "Cancel me": { action: "cancel", content: { name: "ignored" } }
      })
      const { system } = yield* open(stdio, elicit)
      const ask = (params: unknown) => Effect.map(system.execute("asker__ask", { params }), (result) => outcome(result.output))
      expect(yield* ask(name)).toEqual({ result: { action: "accept", content: { name: "Ada" } } })
      expect(yield* ask({ ...name, message: "Decline me" })).toEqual({ result: { action: "decline" } })
      expect(yield* ask({ ...name, message: "Cancel me" })).toEqual({ result: { action: "cancel" } })
      expect(asked[0]).toEqual({
        server: "asker",
        tool: "ask",
        message: "Your name?",
        requestedSchema: name.requestedSchema,
        fields: [{ _tag: "Text", key: "name", title: "Name", description: undefined, required: true, minLength: 1, maxLength: undefined, format: undefined, default: undefined }]
      })
    }))

  it.live("2025: defaults fill the fields left out (SEP-1034); an answer that does not match the form is declined, never sent", () =>
    recordingLogsWith((lines) =>
      Effect.gen(function*() {
        const { elicit } = scripted({
          "Defaults?": { action: "accept", content: {} },
          "Some?": { action: "accept", content: { name: "Ada", tags: [] } },
          "Age?": { action: "accept", content: { age: "thirty" } },
          "Half?": { action: "accept", content: { age: 2.5 } },
          "Below?": { action: "accept", content: { age: -1 } },
          "Extra?": { action: "accept", content: { age: 3, admin: true } },
          "Required?": { action: "accept", content: {} },
          "Pick?": { action: "accept", content: { status: "root" } }
        })
        const { system } = yield* open(stdio, elicit)
        const ask = (params: unknown) => Effect.map(system.execute("asker__ask", { params }), (result) => outcome(result.output))
        expect(yield* ask(withDefaults)).toEqual({ result: { action: "accept", content: defaults } })
        expect(yield* ask({ ...withDefaults, message: "Some?" })).toEqual({ result: { action: "accept", content: { ...defaults, name: "Ada", tags: [] } } })
        const age = form("Age?", { age: { type: "integer", minimum: 0 } })
        expect(yield* ask(age)).toEqual({ result: { action: "decline" } })
        expect(yield* ask({ ...age, message: "Half?" })).toEqual({ result: { action: "decline" } })
        expect(yield* ask({ ...age, message: "Below?" })).toEqual({ result: { action: "decline" } })
        expect(yield* ask({ ...age, message: "Extra?" })).toEqual({ result: { action: "decline" } })
        expect(yield* ask(form("Required?", { age: { type: "integer" } }, ["age"]))).toEqual({ result: { action: "decline" } })
        expect(yield* ask(form("Pick?", { status: { type: "string", enum: ["active"] } }))).toEqual({ result: { action: "decline" } })
        const declined = lines.map(textOf).filter((line) => line.includes("declined"))
        expect(declined).toEqual([
          `MCP server "asker": its question is declined: the answer does not match its form: the field "age" is not a number`,
          `MCP server "asker": its question is declined: the answer does not match its form: the field "age" is not a whole number`,
          `MCP server "asker": its question is declined: the answer does not match its form: the field "age" is below 0`,
          `MCP server "asker": its question is declined: the answer does not match its form: "admin" is not a field of the form`,
          `MCP server "asker": its question is declined: the answer does not match its form: the required field "age" is missing`,
          `MCP server "asker": its question is declined: the answer does not match its form: the field "status" is not one of its options`
        ])
      })
    ))

  it.live("2025, a hostile server: forms past the bounds or not of the spec's shape are declined unseen; a flood is capped; a question outside any call is declined", () =>
    recordingLogsWith((lines) =>
      Effect.gen(function*() {
        const asked: Array<string> = []
        const elicit = (request: McpElicitationRequest) =>
          Effect.as(Effect.andThen(Effect.sync(() => asked.push(request.message)), Effect.sleep("150 millis")), { action: "decline" as const })
        const { system } = yield* open(stdio, elicit)
        const ask = (params: unknown) => Effect.map(system.execute("asker__ask", { params }), (result) => outcome(result.output))
        const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`f${i}`, { type: "string" }]))
        const options = Array.from({ length: 10_000 }, (_, i) => `option ${i}`)
        const declined = { result: { action: "decline" } }
        expect(yield* ask(form("Many?", many))).toEqual(declined)
        expect(yield* ask(form("x".repeat(100_000), { a: { type: "string" } }))).toEqual(declined)
        expect(yield* ask(form("Options?", { pick: { type: "string", enum: options } }))).toEqual(declined)
        expect(yield* ask(form("Long title?", { a: { type: "string", title: "t".repeat(5000) } }))).toEqual(declined)
        expect(yield* ask(form("Bad default?", { a: { type: "string", enum: ["x"], default: "y" } }))).toEqual(declined)
        expect(yield* ask(form("Unknown required?", { a: { type: "string" } }, ["b"]))).toEqual(declined)
        // not the spec's shape (a nested object), a URL-mode question, a message that is no text: declined too
        expect(yield* ask(form("Nested?", { a: { type: "object", properties: { b: { type: "string" } } } }))).toEqual(declined)
        expect(yield* ask({ mode: "url", message: "Go there", url: "https://example.com", elicitationId: "1" })).toEqual(declined)
        expect(yield* ask({ message: { text: "hi" }, requestedSchema: { type: "object", properties: {} } })).toEqual(declined)
        expect(asked).toEqual([])
        // twenty at once: one asked at a time, four waiting, the rest declined at once
        const flood = yield* system.execute("asker__flood", { n: 20 })
        const outcomes: Array<unknown> = JSON.parse(String(flood.output))
        expect(outcomes).toHaveLength(20)
        expect(outcomes.every((o) => JSON.stringify(o) === JSON.stringify(declined))).toBe(true)
        expect(asked.length).toBe(5)
        // asked 20 ms after its call was answered, while no call of ours is in flight: declined unseen
        // (a question that came during another call would be taken as that call's: 2025 gives no link)
        yield* system.execute("asker__ask_later", {})
        yield* Effect.sleep("500 millis")
        expect(outcome((yield* system.execute("asker__last", {})).output)).toEqual(declined)
        expect(asked.length).toBe(5)
        const reasons = lines.map(textOf).filter((line) => line.includes("declined")).map((line) => line.replace(/^.*declined: /, ""))
        expect(reasons.slice(0, 9)).toEqual([
          "its form has 1000 fields (at most 32)",
          "its message has 100000 characters (at most 4000)",
          "the field \"pick\" has 10000 options (at most 100)",
          "the title of the field \"a\" has 5000 characters (at most 1000)",
          "the default of the field \"a\" is not one of its options",
          "its required list names a field the form does not have",
          "the field \"a\" is not a text, number, boolean or choice",
          "it asks in \"url\" mode; the bridge takes form questions only",
          "its message is not a string"
        ])
        expect(reasons.filter((reason) => reason === "more than 4 questions wait already")).toHaveLength(15)
        expect(reasons.at(-1)).toBe("no call of ours to it is in flight")
      })
    ))

  it.live("2026 (HTTP input_required): the answer goes back with requestState echoed, defaults applied; endless rounds fail the call after 8", () =>
    Effect.gen(function*() {
      const fixture = yield* askingHttpServer
      const { asked, elicit } = scripted({
        "Your name?": { action: "accept", content: { name: "Ada" } },
        "Defaults?": { action: "accept", content: {} },
        "No.": { action: "decline" }
      })
      const { system } = yield* open({ web: { url: fixture.url, protocol: "2026-07-28", requiresConfirmation: false } }, elicit)
      const ask = (params?: unknown) =>
        Effect.map(system.execute("web__ask", params === undefined ? {} : { params }), (result) => (result.success ? JSON.parse(String(result.output)) : result.error))
      expect(yield* ask()).toEqual({ action: "accept", content: { name: "Ada" } })
      expect(yield* ask(withDefaults)).toEqual({ action: "accept", content: defaults })
      expect(yield* ask(form("No.", {}))).toEqual({ action: "decline" })
      // a form past the bounds is declined unseen in this era too
      const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, { type: "string" }]))
      expect(yield* ask(form("Many?", many))).toEqual({ action: "decline" })
      expect(fixture.echoed).toEqual([true, true, true, true])
      expect(asked.map((request) => [request.server, request.tool])).toEqual([["web", "ask"], ["web", "ask"], ["web", "ask"]])
      const endless = yield* system.execute("web__endless", {})
      expect(endless).toMatchObject({ success: false, error: expect.stringContaining("still required input after 8 rounds") })
      expect(fixture.counts.rounds).toBe(9)
      expect(asked).toHaveLength(3 + 8)
    }))

  it.live("without the service: nothing is declared, and a question fails as before (2025: Method not found; 2026: the call fails)", () =>
    Effect.gen(function*() {
      const fixture = yield* askingHttpServer
      const { system } = yield* open({ ...stdio, web: { url: fixture.url, protocol: "2026-07-28", requiresConfirmation: false } })
      const old = outcome((yield* system.execute("asker__ask", {})).output)
      expect(old).toMatchObject({ error: expect.stringContaining("Method not found") })
      const modern = yield* system.execute("web__ask", {})
      // the server sees no elicitation capability in the request's _meta, and refuses to ask
      expect(modern).toMatchObject({ success: false, error: expect.stringContaining("client capabilities do not declare the required capability") })
    }))

  it.live("an interrupted call withdraws its question, in both eras; a question not answered in time is cancelled", () =>
    recordingLogsWith((lines) =>
      Effect.gen(function*() {
        const fixture = yield* askingHttpServer
        let started = 0
        let withdrawn = 0
        const elicit = () =>
          Effect.onInterrupt(Effect.andThen(Effect.sync(() => void started++), Effect.never), () => Effect.sync(() => void withdrawn++))
        const { system } = yield* open(
          { ...stdio, web: { url: fixture.url, protocol: "2026-07-28", requiresConfirmation: false } },
          elicit,
          { ...fast, elicitationTimeout: Duration.seconds(30) }
        )
        for (const [name, n] of [["asker__ask", 1], ["web__ask", 2]] as const) {
          const call = yield* Effect.forkChild(system.execute(name, {}))
          expect(yield* eventually(() => started === n)).toBe(true)
          yield* Fiber.interrupt(call)
          expect(yield* eventually(() => withdrawn === n)).toBe(true)
        }
        // a short timeout: the question is cancelled, and the server hears so
        const { system: hurried } = yield* open(
          { ...stdio, web: { url: fixture.url, protocol: "2026-07-28", requiresConfirmation: false, callTimeoutMs: 400 } },
          elicit,
          { ...fast, elicitationTimeout: Duration.millis(100) }
        )
        expect(outcome((yield* hurried.execute("asker__ask", {})).output)).toEqual({ result: { action: "cancel" } })
        expect(withdrawn).toBe(3)
        // 2026: the call's deadline holds over the whole flow (the SDK times each leg only): a
        // question still open at it is withdrawn, and the call is a TIMEOUT
        const { system: strict } = yield* open(
          { web: { url: fixture.url, protocol: "2026-07-28", requiresConfirmation: false, callTimeoutMs: 300 } },
          elicit
        )
        const begun = Date.now()
        expect(yield* strict.execute("web__ask", {})).toMatchObject({ success: false, errorCode: "TIMEOUT" })
        expect(Date.now() - begun).toBeLessThan(2000)
        expect(yield* eventually(() => withdrawn === 4)).toBe(true)
        expect(lines.map(textOf)).toContain(`MCP server "asker": its question was not answered within 100ms (cancelled)`)
      })
    ))
})
