/**
 * The executor's contract with callers and tool authors: unknown properties are refused,
 * arguments of any depth or size get a result, a handler's typed error keeps its fields, a
 * custom confirmation gate is asked only about tools that need confirmation, timeouts follow
 * the fiber's `Clock`, and error messages name workspace-relative paths.
 */
import { describe, expect, it } from "@effect/vitest"
import { Data, Effect, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import {
  ConfirmationGate,
  MAX_ARGUMENT_DEPTH,
  Tool,
  type ToolInfo,
  ToolSystem,
  Workspace,
  WorkspacePath
} from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("contract-")

class NotFound extends Data.TaggedError("NotFound")<{ readonly id: string; readonly tries: number }> {}

const echo = Tool.make("echo", {
  description: "Echoes",
  parameters: Schema.Struct({
    x: Schema.Number,
    nested: Schema.optional(Schema.Struct({ y: Schema.String })),
    deep: Schema.optional(Schema.Unknown)
  }),
  readOnly: true,
  handler: ({ x }) => Effect.succeed(x)
})

const lookup = Tool.make("lookup", {
  description: "Fails with a typed error that has no message",
  parameters: Schema.Struct({ id: Schema.String }),
  readOnly: true,
  handler: ({ id }) => Effect.fail(new NotFound({ id, tries: 3 }))
})

const missing = Tool.make("missing", {
  description: "Fails with the platform's error for a missing file",
  parameters: Schema.Struct({ file: WorkspacePath }),
  readOnly: true,
  handler: ({ file }) => Effect.try({ try: () => fs.readFileSync(file, "utf8"), catch: (e) => e })
})

const slow = Tool.make("slow", {
  description: "Sleeps a minute (on the fiber's clock)",
  parameters: Schema.Struct({}),
  readOnly: true,
  timeout: "5 seconds",
  handler: () => Effect.as(Effect.sleep("60 seconds"), "woke up")
})

const risky = Tool.make("risky", {
  description: "Needs confirmation",
  parameters: Schema.Struct({}),
  requiresConfirmation: true,
  handler: () => Effect.succeed("done")
})

const tools = [echo, lookup, missing, slow, risky] as const
const system = (confirmation?: Layer.Layer<ConfirmationGate>) =>
  ToolSystem.layerNode({
    builtins: false,
    tools,
    workspace: Workspace.layerFixed(ws),
    ...(confirmation === undefined ? {} : { confirmation })
  })

const exec = (name: string, args: unknown, options?: { readonly confirm?: boolean }) =>
  Effect.flatMap(ToolSystem, (t) => t.execute(name, args, options))

/** `{ a: { a: ... } }` nested `depth` deep, built without recursion. */
const nested = (depth: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

describe("arguments", () => {
  it.effect("an unknown property is refused, naming it", () =>
    Effect.gen(function*() {
      const r = yield* exec("echo", { x: 1, invented: true })
      expect(r).toMatchObject({ success: false, errorCode: "INVALID_ARGUMENTS" })
      expect(r.error).toMatch(/invented: unknown property; expected one of: .*x/)
      const inner = yield* exec("echo", { x: 1, nested: { y: "a", z: 2 } })
      expect(inner.error).toMatch(/nested\.z: unknown property/)
    }).pipe(Effect.provide(system())))

  it.effect("a tool without parameters refuses any property", () =>
    Effect.gen(function*() {
      const r = yield* exec("slow", { extra: 1 })
      expect(r).toMatchObject({ success: false, errorCode: "INVALID_ARGUMENTS" })
      expect(r.error).toContain("extra: unknown property")
    }).pipe(Effect.provide(system())))

  it.effect("argument errors are one short line per problem, with its path", () =>
    Effect.gen(function*() {
      const r = yield* exec("echo", { x: "not a number ".repeat(1000), nested: { y: 5 } })
      expect(r.success).toBe(false)
      const problems = (r.error ?? "").replace(/^Invalid arguments for "echo": /, "").split("; ")
      expect(problems).toHaveLength(2)
      for (const p of problems) {
        expect(p).not.toContain("\n")
        expect(p.length).toBeLessThanOrEqual(220)
      }
      expect(problems[0]).toMatch(/^x: /)
      expect(problems[1]).toMatch(/^nested\.y: /)
    }).pipe(Effect.provide(system())))

  it.effect("arguments nested 30,000 deep get a result (INVALID_ARGUMENTS), not a crash", () =>
    Effect.gen(function*() {
      const r = yield* exec("echo", { x: 1, deep: nested(30_000) })
      expect(r).toMatchObject({ success: false, errorCode: "INVALID_ARGUMENTS" })
      expect(r.error).toContain(`deeper than ${MAX_ARGUMENT_DEPTH}`)
      const wide = yield* exec("echo", { x: 1, deep: Array.from({ length: 200_000 }, () => 0) })
      expect(wide).toMatchObject({ success: false, errorCode: "INVALID_ARGUMENTS" })
      const ok = yield* exec("echo", { x: 1, deep: nested(MAX_ARGUMENT_DEPTH - 3) })
      expect(ok).toMatchObject({ success: true, output: 1 })
      // a cycle (a programmatic caller) is bounded too
      const cyclic: Record<string, unknown> = { x: 1 }
      cyclic.deep = cyclic
      expect((yield* exec("echo", cyclic)).errorCode).toBe("INVALID_ARGUMENTS")
    }).pipe(Effect.provide(system())))
})

describe("handler errors", () => {
  it.effect("a typed error without a message keeps its fields as details, with a readable message", () =>
    Effect.gen(function*() {
      const r = yield* exec("lookup", { id: "42" })
      expect(r).toMatchObject({
        success: false,
        errorCode: "TOOL_ERROR",
        details: { id: "42", tries: 3 },
        error: "NotFound (id: \"42\", tries: 3)"
      })
    }).pipe(Effect.provide(system())))

  it.effect("messages name workspace-relative paths, never the host's absolute path", () =>
    Effect.gen(function*() {
      const r = yield* exec("missing", { file: "sub/none.txt" })
      expect(r).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(r.error).toContain("sub/none.txt")
      expect(r.error).not.toContain(ws)
    }).pipe(Effect.provide(system())))
})

describe("confirmation", () => {
  it.effect("a custom ConfirmationGate is asked only about tools that need confirmation", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const gate = Layer.succeed(ConfirmationGate, {
        check: (tool: ToolInfo) => Effect.sync(() => void asked.push(tool.name))
      })
      yield* Effect.gen(function*() {
        expect((yield* exec("echo", { x: 1 })).success).toBe(true)
        expect((yield* exec("risky", {})).success).toBe(true)
      }).pipe(Effect.provide(system(gate)))
      expect(asked).toEqual(["risky"])
    }))

  it.effect("ConfirmationGate.layerAutoConfirm runs calls made without confirm", () =>
    Effect.gen(function*() {
      expect(yield* exec("risky", {})).toMatchObject({ success: true, output: "done" })
    }).pipe(Effect.provide(system(ConfirmationGate.layerAutoConfirm))))
})

describe("timeouts", () => {
  it.effect("follow the fiber's Clock: TestClock.adjust times a tool out with no real waiting", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const fiber = yield* Effect.forkChild(exec("slow", {}))
      yield* TestClock.adjust("4 seconds")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 second")
      const r = yield* Fiber.join(fiber)
      expect(r).toMatchObject({ success: false, errorCode: "TIMEOUT" })
      // a deadline on the real clock would have taken its 5 s
      expect(Date.now() - started).toBeLessThan(3_000)
    }).pipe(Effect.provide(system())))

  it.live("on the live clock the deadline is real", () =>
    Effect.gen(function*() {
      const quick = Tool.make("quick_timeout", {
        description: "Sleeps past its timeout",
        parameters: Schema.Struct({}),
        readOnly: true,
        timeout: "50 millis",
        handler: () => Effect.as(Effect.sleep("10 seconds"), "late")
      })
      const r = yield* Effect.flatMap(ToolSystem, (t) => t.execute("quick_timeout", {})).pipe(
        Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [quick], workspace: Workspace.layerFixed(ws) }))
      )
      expect(r).toMatchObject({ success: false, errorCode: "TIMEOUT" })
      // the 50 ms deadline cut it, not the handler's own 10 s (half of that is left as margin for a loaded machine)
      expect(r.durationMs).toBeLessThan(5_000)
    }))
})
