/**
 * The executor's gates and results, through `ToolSystem` (and `ToolExecutor.layer` alone):
 * the rate limiter is asked only about tools with a limit, and a refused call never runs the
 * handler; a crash is a bounded, logged TOOL_ERROR; a handler that interrupts itself
 * interrupts the call; only the tool's own error messages are made workspace-relative; the
 * executor works without an audit log in context, and with one writes one record per call
 * (escapes and interruptions included) with the call's version, mode, outcome, duration and
 * span. Last, which tools the facade registers (builtins, ported, MCP servers).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Option, Schema, Tracer } from "effect"
import {
  AgentMode,
  AuditLog,
  type AuditRecord,
  builtinTools,
  ConfirmationGate,
  ModeGate,
  PathTraversalError,
  RateLimited,
  RateLimiter,
  Tool,
  type ToolInfo,
  ToolError,
  ToolExecutor,
  ToolPolicy,
  ToolRegistry,
  ToolSystem,
  Workspace
} from "../../src/index.js"
import * as fs from "node:fs"
import { portedTools } from "../../src/tools/ported/index.js"
import { recordingLogs, textOf } from "../helpers/recordingLogs.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { fast, nodeServer } from "../tools/mcp/helpers.js"

const ws = makeTempDirSync("gates-")

let runs = 0
const counted = Tool.make("counted", {
  description: "Counts its runs; 5 calls a minute",
  parameters: Schema.Struct({}),
  readOnly: true,
  rateLimitRpm: 5,
  handler: () => Effect.sync(() => ++runs)
})

const echo = Tool.make("echo", {
  description: "Echoes",
  parameters: Schema.Struct({ x: Schema.Number }),
  readOnly: true,
  version: "1.4.0",
  handler: ({ x }) => Effect.succeed(x)
})

const crash = Tool.make("crash", {
  description: "Dies with the given message, or with a defect that cannot be printed",
  parameters: Schema.Struct({ message: Schema.optional(Schema.String) }),
  readOnly: true,
  handler: ({ message }) => Effect.die(message === undefined ? Object.create(null) : new Error(message))
})

const quits = Tool.make("quits", {
  description: "Interrupts itself at once",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.interrupt
})

const fails = Tool.make("fails", {
  description: "Fails naming a file of the workspace by its absolute path",
  parameters: Schema.Struct({ file: Schema.String }),
  readOnly: true,
  handler: ({ file }) => Effect.flatMap(Workspace, (w) => w.root).pipe(
    Effect.flatMap((root) => Effect.fail(new ToolError({ tool: "fails", message: `cannot open ${root}/${file}` })))
  )
})

const escapes = Tool.make("escapes", {
  description: "Fails with a workspace escape",
  parameters: Schema.Struct({}),
  readOnly: true,
  version: "2.0.0",
  handler: () => Effect.fail(new PathTraversalError({ path: "../outside", workspace: ws, reason: "leaves the workspace" }))
})

const tools = [counted, echo, crash, quits, fails, escapes] as const

const system = (options: { readonly rateLimiter?: Layer.Layer<RateLimiter>; readonly policy?: Layer.Layer<ToolPolicy> } = {}) =>
  ToolSystem.layerNode({ builtins: false, tools, workspace: Workspace.layerFixed(ws), ...options })

const exec = (name: string, args: unknown, options?: { readonly rateLimitKey?: string }) =>
  Effect.flatMap(ToolSystem, (t) => t.execute(name, args, options))


describe("the rate-limit gate", () => {
  it.effect("asks the rate limiter only about tools with a limit; a refused call never runs the handler", () =>
    Effect.gen(function*() {
      const asked: Array<[string, string | undefined]> = []
      const refuseAll = Layer.succeed(RateLimiter, {
        acquire: (tool: ToolInfo, key?: string) =>
          Effect.andThen(
            Effect.sync(() => void asked.push([tool.name, key])),
            Effect.fail(new RateLimited({ tool: tool.name, limitRpm: tool.rateLimitRpm ?? 0, retryAfterMs: 1_000 }))
          ),
        check: () => Effect.void
      })
      runs = 0
      yield* Effect.gen(function*() {
        expect(yield* exec("echo", { x: 1 })).toMatchObject({ success: true, output: 1 })
        const refused = yield* exec("counted", {}, { rateLimitKey: "tenant-7" })
        expect(refused).toMatchObject({ success: false, errorCode: "RATE_LIMITED", retryAfterMs: 1_000 })
      }).pipe(Effect.provide(system({ rateLimiter: refuseAll })))
      expect(runs).toBe(0)
      expect(asked).toEqual([["counted", "tenant-7"]])
    }))
})

describe("a crash", () => {
  it.effect("is TOOL_ERROR with the defect's message, bounded to 500 characters", () =>
    Effect.gen(function*() {
      // String(new Error(m)) is "Error: " + m
      const fits = "x".repeat(500 - "Error: ".length)
      expect((yield* exec("crash", { message: fits })).error).toBe(`the tool crashed: Error: ${fits}`)
      const long = "y".repeat(1_000)
      const cut = yield* exec("crash", { message: long })
      expect(cut).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(cut.error).toBe(`the tool crashed: ${`Error: ${long}`.slice(0, 499)}…`)
      const oneOver = "z".repeat(501 - "Error: ".length)
      expect((yield* exec("crash", { message: oneOver })).error).toBe(
        `the tool crashed: ${`Error: ${oneOver}`.slice(0, 499)}…`
      )
    }).pipe(Effect.provide(system())))

  it.effect("of a defect that cannot be printed is still a result", () =>
    Effect.gen(function*() {
      const [r] = yield* recordingLogs(exec("crash", {}))
      expect(r).toMatchObject({ success: false, errorCode: "TOOL_ERROR", error: "the tool crashed: an unprintable defect" })
    }).pipe(Effect.provide(system())))

  it.effect("is logged at error level, naming the tool, with its cause", () =>
    Effect.gen(function*() {
      const [r, lines] = yield* recordingLogs(exec("crash", { message: "kaboom" }))
      expect(r.errorCode).toBe("TOOL_ERROR")
      const errors = lines.filter((l) => l.level === "Error")
      expect(errors.map(textOf)).toEqual(["Tool \"crash\" died"])
      expect(Cause.pretty(errors[0]!.cause)).toContain("kaboom")
    }).pipe(Effect.provide(system())))
})

describe("interruption from inside", () => {
  it.effect("a handler that interrupts itself at once interrupts the call: no result", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(exec("quits", {}))
      expect(Exit.hasInterrupts(exit)).toBe(true)
    }).pipe(Effect.provide(system())))
})

describe("messages", () => {
  it.effect("the tool's own error names workspace paths relative; a policy's veto reason is passed on as written", () =>
    Effect.gen(function*() {
      const root = yield* Effect.flatMap(Workspace, (w) => w.root)
      expect(yield* exec("fails", { file: "data/a.csv" })).toMatchObject({ errorCode: "TOOL_ERROR", error: "cannot open data/a.csv" })
      const vetoed = yield* exec("echo", { x: 1 })
      expect(vetoed).toMatchObject({ errorCode: "POLICY_VETO", error: `Policy vetoed "echo": ${root}/secret is off limits` })
    }).pipe(
      Effect.provide(system({
        policy: ToolPolicy.layer(({ tool }) =>
          Effect.succeed(tool.name === "echo" ? Option.some(`${fs.realpathSync(ws)}/secret is off limits`) : Option.none())
        )
      }))
    ))
})

describe("ToolExecutor.layer", () => {
  it.effect("runs calls with no audit log in context", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      yield* registry.register(echo)
      const executor = yield* ToolExecutor
      expect(yield* executor.execute("echo", { x: 5 })).toMatchObject({ success: true, output: 5, version: "1.4.0" })
      expect(yield* executor.execute("nope", {})).toMatchObject({ success: false, errorCode: "TOOL_NOT_FOUND" })
    }).pipe(
      Effect.provide(
        ToolExecutor.layer.pipe(
          Layer.provideMerge(
            Layer.mergeAll(
              ToolRegistry.layerEmpty,
              ModeGate.layer,
              ToolPolicy.layerAllowAll,
              ConfirmationGate.layer,
              RateLimiter.layerMemory
            )
          ),
          Layer.provideMerge(Workspace.layerFixed(ws)),
          Layer.provide(NodeServices.layer)
        )
      )
    ))
})

describe("the audit record of a call", () => {
  const audited = (records: Array<AuditRecord>, more: ReadonlyArray<Tool.Tool<never>> = []) =>
    ToolSystem.layerNode({
      builtins: false,
      tools: [...tools, ...more],
      workspace: Workspace.layerFixed(ws),
      audit: Layer.succeed(AuditLog, {
        enabled: true,
        includeArguments: false,
        write: (record) => Effect.sync(() => void records.push(record))
      })
    })

  it.effect("of a success, a refusal and an unknown tool: version, mode, outcome, duration", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      yield* Effect.gen(function*() {
        const tools = yield* ToolSystem
        const ok = yield* tools.execute("echo", { x: 1 }, { mode: AgentMode.Plan, callId: "c-1" })
        const refused = yield* tools.execute("echo", { x: "one" })
        const missing = yield* tools.execute("nope", {})
        expect(records).toHaveLength(3)
        expect(records[0]).toMatchObject({
          tool: "echo",
          version: "1.4.0",
          mode: "plan",
          callId: "c-1",
          success: true,
          errorCode: null,
          durationMs: ok.durationMs,
          traceId: null,
          spanId: null
        })
        expect(records[1]).toMatchObject({
          tool: "echo",
          version: "1.4.0",
          mode: "default",
          success: false,
          errorCode: "INVALID_ARGUMENTS",
          durationMs: refused.durationMs
        })
        expect(records[1]!.gates.find((g) => g.gate === "arguments")).toEqual({
          gate: "arguments",
          outcome: "fail",
          reason: refused.error,
          code: "INVALID_ARGUMENTS"
        })
        expect(records[2]).toMatchObject({ tool: "nope", version: null, mode: "default", success: false, errorCode: "TOOL_NOT_FOUND" })
        expect(records[2]!.gates[0]).toMatchObject({ gate: "lookup", outcome: "fail", reason: missing.error })
      }).pipe(Effect.provide(audited(records)))
    }))

  it.effect("of an escape (a defect, not a result) and of an interrupted call", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      const started = yield* Deferred.make<void>()
      const hangs = Tool.make("hangs", {
        description: "Never ends",
        parameters: Schema.Struct({}),
        readOnly: true,
        version: "0.3.0",
        handler: () => Effect.andThen(Deferred.succeed(started, undefined), Effect.never)
      })
      yield* Effect.gen(function*() {
        const tools = yield* ToolSystem
        const exit = yield* Effect.exit(tools.execute("escapes", {}))
        expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
        const fiber = yield* Effect.forkChild(tools.execute("hangs", {}))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
      }).pipe(Effect.provide(audited(records, [hangs])))
      expect(records).toHaveLength(2)
      const [escape, interrupted] = records
      expect(escape).toMatchObject({ tool: "escapes", version: "2.0.0", success: false, errorCode: "PATH_TRAVERSAL" })
      expect(escape!.gates.find((g) => g.gate === "paths")).toMatchObject({ outcome: "fail", code: "PATH_TRAVERSAL" })
      expect(escape!.gates.find((g) => g.gate === "paths")?.reason).toContain("../outside")
      expect(interrupted).toMatchObject({ tool: "hangs", version: "0.3.0", mode: "default", success: false, errorCode: null })
      expect(interrupted!.durationMs).toBeGreaterThanOrEqual(0)
    }))

  it.effect("names the call's span when a tracer is installed, else the caller's span", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      const spans: Array<Tracer.Span> = []
      const native = yield* Effect.tracer
      const recording = Tracer.make({
        context: native.context,
        span: (options) => {
          const span = native.span(options)
          spans.push(span)
          return span
        }
      })
      yield* Effect.gen(function*() {
        const tools = yield* ToolSystem
        yield* tools.execute("echo", { x: 1 }).pipe(Effect.withTracer(recording))
        const request = yield* Effect.withSpan(
          Effect.tap(Effect.currentSpan, () => tools.execute("echo", { x: 2 })),
          "request"
        )
        const call = spans.find((s) => s.name === "execute_tool echo")
        expect(records[0]).toMatchObject({ traceId: call?.traceId, spanId: call?.spanId })
        expect(records[1]).toMatchObject({ traceId: request.traceId, spanId: request.spanId })
      }).pipe(Effect.provide(audited(records)))
    }))
})

describe("which tools the facade registers", () => {
  const namesOf = (layer: Layer.Layer<ToolRegistry, unknown>) =>
    Effect.flatMap(ToolRegistry, (r) => r.list()).pipe(
      Effect.map((list) => list.map((t) => t.name).sort()),
      Effect.provide(layer)
    )
  const sorted = (names: ReadonlyArray<string>) => [...names].sort()
  const builtinNames = builtinTools.map((t) => t.name)
  const portedNames = portedTools.map((t) => t.name)
  const options = { tools: [echo], workspace: Workspace.layerFixed(ws) }

  it.effect("by default the builtins and the ported tools; builtins: false leaves both out, ported its own", () =>
    Effect.gen(function*() {
      expect(yield* namesOf(ToolSystem.layerNode(options))).toEqual(sorted([...builtinNames, ...portedNames, "echo"]))
      expect(yield* namesOf(ToolSystem.layerNode({ ...options, builtins: false }))).toEqual(["echo"])
      expect(yield* namesOf(ToolSystem.layerNode({ ...options, ported: false }))).toEqual(sorted([...builtinNames, "echo"]))
      expect(yield* namesOf(ToolSystem.layerNode({ ...options, builtins: false, ported: true }))).toEqual(
        sorted([...portedNames, "echo"])
      )
    }))

  // live clock: each MCP server is a child process, listed over its real stdio
  it.live("the tools of the configured MCP servers, for the layer's lifetime", () =>
    Effect.gen(function*() {
      const names = yield* namesOf(
        ToolSystem.layerNode({ ...options, builtins: false, mcpServers: { srv: nodeServer("echo.mjs") }, mcp: fast })
      )
      expect(names).toContain("echo")
      expect(names).toContain("srv__echo")
    }), 20_000)
})
