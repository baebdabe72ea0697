import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Option, Result, Schema, Tracer } from "effect"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  AgentMode,
  PathTraversalError,
  RateLimiter,
  Tool,
  ToolError,
  ToolPolicy,
  ToolRegistry,
  ToolSystem,
  type GraphOptions,
  type ToolServices,
  Workspace,
  WorkspacePath
} from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { countingSleeps, joinUnmoved, sleepersUntil } from "../helpers/testClock.js"

const ws = makeTempDirSync()
fs.writeFileSync(path.join(ws, "hello.txt"), "hello\n")

const echo = Tool.make("echo", {
  description: "Echoes x",
  parameters: Schema.Struct({ x: Schema.Number, label: Schema.optional(Schema.String) }),
  readOnly: true,
  tags: ["test"],
  handler: ({ x }) => Effect.succeed({ x })
})

const touch = Tool.make("touch", {
  description: "Writes a file (a side effect)",
  parameters: Schema.Struct({ filepath: WorkspacePath }),
  scopedWrite: true,
  handler: ({ filepath }) =>
    Effect.flatMap(Workspace, (w) => w.resolve(filepath)).pipe(
      Effect.map((p) => {
        fs.mkdirSync(path.dirname(p), { recursive: true })
        fs.writeFileSync(p, "x")
        return "ok"
      })
    )
})

const shell = Tool.make("shell", {
  description: "Side effects without a path",
  parameters: Schema.Struct({}),
  scopedWrite: true,
  handler: () => Effect.succeed("ran")
})

const guarded = Tool.make("guarded", {
  description: "Needs confirmation and is rate limited",
  parameters: Schema.Struct({ n: Schema.Number }),
  requiresConfirmation: true,
  rateLimitRpm: 2,
  handler: ({ n }) => Effect.succeed(n)
})

const limited = Tool.make("limited", {
  description: "10 calls a minute",
  parameters: Schema.Struct({}),
  readOnly: true,
  rateLimitRpm: 10,
  handler: () => Effect.succeed("in")
})

const failing = Tool.make("failing", {
  description: "Fails or dies",
  parameters: Schema.Struct({ how: Schema.Literals(["fail", "die", "escape", "escapeDefect"]) }),
  readOnly: true,
  handler: ({ how }): Effect.Effect<string, ToolError | PathTraversalError> => {
    switch (how) {
      case "fail":
        return Effect.fail(new ToolError({ tool: "failing", message: "it broke" }))
      case "die":
        return Effect.sync((): string => {
          throw new Error("boom")
        })
      case "escape":
        return Effect.fail(new PathTraversalError({ path: "../x", workspace: ws, reason: "test" }))
      case "escapeDefect":
        return Effect.die(new PathTraversalError({ path: "../y", workspace: ws, reason: "test" }))
    }
  }
})

const finalized: Array<string> = []
const sleepy = Tool.make("sleepy", {
  description: "Sleeps 10 s",
  parameters: Schema.Struct({ id: Schema.String }),
  readOnly: true,
  timeout: "100 millis",
  handler: ({ id }) =>
    Effect.sleep("10 seconds").pipe(
      Effect.as("woke"),
      Effect.ensuring(Effect.sync(() => finalized.push(id)))
    )
})

const hog = Tool.make("hog", {
  description: "Grows the heap",
  parameters: Schema.Struct({}),
  readOnly: true,
  memoryLimitMb: 32,
  timeout: "20 seconds",
  handler: () =>
    Effect.gen(function*() {
      const keep: Array<Array<number>> = []
      for (let i = 0; i < 200; i++) {
        keep.push(new Array(1_000_000).fill(i))
        yield* Effect.sleep("10 millis")
      }
      return keep.length
    })
})

const readHello = Tool.make("read_hello", {
  description: "Reads hello.txt in the current workspace",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () =>
    Effect.flatMap(Workspace, (w) => w.resolve("hello.txt")).pipe(Effect.map((p) => fs.readFileSync(p, "utf8")))
})

const tools: ReadonlyArray<Tool.Tool<ToolServices>> = [echo, touch, shell, guarded, limited, failing, sleepy, hog, readHello]

const system = (options: Omit<GraphOptions, "tools" | "builtins"> = {}) =>
  ToolSystem.layerNode({ builtins: false, tools, workspace: Workspace.layerFixed(ws), ...options })

const exec = (name: string, args: unknown, options?: Parameters<import("../../src/index.js").ToolSystemService["execute"]>[2]) =>
  Effect.flatMap(ToolSystem, (ts) => ts.execute(name, args, options))

describe("ToolExecutor", () => {
  it.effect("a successful call", () =>
    Effect.gen(function*() {
      const r = yield* exec("echo", { x: 3 })
      expect(r).toMatchObject({
        success: true,
        output: { x: 3 },
        error: null,
        errorCode: null,
        confirmed: true,
        tool: "echo",
        version: "1.0.0"
      })
      expect(r.durationMs).toBeGreaterThanOrEqual(0)
    }).pipe(Effect.provide(system())))

  it.effect("strictArguments drops the nulls an OpenAI strict-mode model sends for left-out fields", () =>
    Effect.gen(function*() {
      const args = { x: 1, label: null }
      expect((yield* exec("echo", args)).errorCode).toBe("INVALID_ARGUMENTS")
      expect((yield* exec("echo", args, { strictArguments: true })).output).toEqual({ x: 1 })
    }).pipe(Effect.provide(system())))

  it.effect("TOOL_NOT_FOUND names close tools", () =>
    Effect.gen(function*() {
      const r = yield* exec("ecoh", {})
      expect(r.errorCode).toBe("TOOL_NOT_FOUND")
      expect(r.success).toBe(false)
      expect(r.version).toBeNull()
      expect(r.error).toContain("echo")
    }).pipe(Effect.provide(system())))

  it.effect("INVALID_ARGUMENTS lists every issue with its path", () =>
    Effect.gen(function*() {
      const r = yield* exec("echo", { x: "three", label: 4 })
      expect(r.errorCode).toBe("INVALID_ARGUMENTS")
      expect(r.error).toContain("x:")
      expect(r.error).toContain("label:")
      const none = yield* exec("echo", null)
      expect(none.errorCode).toBe("INVALID_ARGUMENTS")
    }).pipe(Effect.provide(system())))

  describe("mode gate", () => {
    it.effect("read-only modes allow read-only tools and block others", () =>
      Effect.gen(function*() {
        expect((yield* exec("echo", { x: 1 }, { mode: AgentMode.Explore })).success).toBe(true)
        const blocked = yield* exec("guarded", { n: 1 }, { mode: AgentMode.Explore, confirm: true })
        expect(blocked.errorCode).toBe("MODE_BLOCKED")
        expect(blocked.error).toContain("explore")
      }).pipe(Effect.provide(system())))

    it.effect("scoped writes pass only inside the mode's dirs, and fail closed", () =>
      Effect.gen(function*() {
        const inside = yield* exec("touch", { filepath: "plans/p1.md" }, { mode: AgentMode.Plan })
        expect(inside.success).toBe(true)
        expect(fs.existsSync(path.join(ws, "plans/p1.md"))).toBe(true)
        const outside = yield* exec("touch", { filepath: "notes.md" }, { mode: AgentMode.Plan })
        expect(outside.errorCode).toBe("MODE_BLOCKED")
        expect(fs.existsSync(path.join(ws, "notes.md"))).toBe(false)
        const sneaky = yield* exec("touch", { filepath: "plans/../notes2.md" }, { mode: AgentMode.Plan })
        expect(sneaky.errorCode).toBe("MODE_BLOCKED")
        const theDir = yield* exec("touch", { filepath: "plans" }, { mode: AgentMode.Plan })
        expect(theDir.errorCode).toBe("MODE_BLOCKED")
        const noPath = yield* exec("shell", {}, { mode: AgentMode.Plan })
        expect(noPath.errorCode).toBe("MODE_BLOCKED")
        const noDirs = yield* exec("touch", { filepath: "plans/p2.md" }, { mode: AgentMode.Explore })
        expect(noDirs.errorCode).toBe("MODE_BLOCKED")
        expect(fs.existsSync(path.join(ws, "plans/p2.md"))).toBe(false)
      }).pipe(Effect.provide(system())))

    it.effect("a scoped-write path that escapes the workspace is a defect", () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(exec("touch", { filepath: "../../etc/x" }, { mode: AgentMode.Plan }))
        expect(Exit.isFailure(exit)).toBe(true)
        if (Exit.isFailure(exit)) expect(Result.getOrNull(Cause.findDefect(exit.cause))).toBeInstanceOf(PathTraversalError)
      }).pipe(Effect.provide(system())))
  })

  describe("policy hook", () => {
    it.effect("a Some vetoes with POLICY_VETO; the hook sees the tool and the decoded args", () => {
      const seen: Array<unknown> = []
      const policy = ToolPolicy.layer(({ args, tool }) =>
        Effect.sync(() => {
          seen.push([tool.name, args])
          return tool.name === "echo" ? Option.some("no echoes") : Option.none()
        })
      )
      return Effect.gen(function*() {
        const r = yield* exec("echo", { x: 1 })
        expect(r.errorCode).toBe("POLICY_VETO")
        expect(r.error).toContain("no echoes")
        expect((yield* exec("read_hello", {})).success).toBe(true)
        expect(seen[0]).toEqual(["echo", { x: 1 }])
      }).pipe(Effect.provide(system({ policy })))
    })

    it.effect("a failing or dying hook fails open", () =>
      Effect.gen(function*() {
        expect((yield* exec("echo", { x: 1 })).success).toBe(true)
        expect((yield* exec("read_hello", {})).success).toBe(true)
      }).pipe(
        Effect.provide(system({
          policy: ToolPolicy.layer(({ tool }) =>
            tool.name === "echo" ? Effect.fail("hook broke") : Effect.die(new Error("hook died"))
          )
        }))
      ))

    it.effect("failClosed turns a hook failure into a veto", () =>
      Effect.gen(function*() {
        const r = yield* exec("echo", { x: 1 })
        expect(r.errorCode).toBe("POLICY_VETO")
        expect(r.error).toContain("hook broke")
      }).pipe(
        Effect.provide(system({ policy: ToolPolicy.layer(() => Effect.fail("hook broke"), { failClosed: true }) }))
      ))
  })

  describe("confirmation and rate limit", () => {
    it.effect("unconfirmed calls are paused and spend no token", () =>
      Effect.gen(function*() {
        for (let i = 0; i < 5; i++) {
          const r = yield* exec("guarded", { n: i })
          expect(r).toMatchObject({ success: false, errorCode: "CONFIRMATION_REQUIRED", confirmed: false })
          expect(r.error).toBe("Confirmation required")
        }
        expect((yield* exec("guarded", { n: 1 }, { confirm: true })).output).toBe(1)
        expect((yield* exec("guarded", { n: 2 }, { confirm: true })).output).toBe(2)
        const third = yield* exec("guarded", { n: 3 }, { confirm: true })
        expect(third.errorCode).toBe("RATE_LIMITED")
        expect(third.success ? undefined : third.retryAfterMs).toBe(30_000)
        yield* TestClock.adjust("30 seconds")
        expect((yield* exec("guarded", { n: 4 }, { confirm: true })).success).toBe(true)
      }).pipe(Effect.provide(system())))

    it.effect("1,000 concurrent calls admit exactly the allowed number", () =>
      Effect.gen(function*() {
        const results = yield* Effect.all(Array.from({ length: 1000 }, () => exec("limited", {})), {
          concurrency: "unbounded"
        })
        expect(results.filter((r) => r.success).length).toBe(10)
        expect(results.filter((r) => r.errorCode === "RATE_LIMITED").length).toBe(990)
        yield* TestClock.adjust("6 seconds")
        const again = yield* Effect.all(Array.from({ length: 50 }, () => exec("limited", {})), {
          concurrency: "unbounded"
        })
        expect(again.filter((r) => r.success).length).toBe(1)
      }).pipe(Effect.provide(system())))

    it.effect("RateLimiter.layerUnlimited admits everything", () =>
      Effect.gen(function*() {
        const results = yield* Effect.all(Array.from({ length: 100 }, () => exec("limited", {})))
        expect(results.every((r) => r.success)).toBe(true)
      }).pipe(Effect.provide(system({ rateLimiter: RateLimiter.layerUnlimited }))))
  })

  describe("run", () => {
    it.effect("a 10 s handler under a 100 ms timeout ends TIMEOUT at 100 ms, its finalizer run", () =>
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(exec("sleepy", { id: "t1" }))
        // the handler sleeps its 10 s
        yield* sleepersUntil(10_000)
        yield* TestClock.adjust("99 millis")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        const r = yield* joinUnmoved(fiber)
        expect(r.errorCode).toBe("TIMEOUT")
        expect(r.error).toContain("100 ms")
        expect(finalized).toContain("t1")
      }).pipe(Effect.provide(system()), countingSleeps))

    it.effect("interrupting the caller interrupts the handler and runs its finalizer", () =>
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(exec("sleepy", { id: "t2" }))
        // interrupted once the handler sleeps
        yield* sleepersUntil(10_000)
        yield* Fiber.interrupt(fiber)
        expect(finalized).toContain("t2")
      }).pipe(Effect.provide(system()), countingSleeps))

    // live clock: the memory cap is a real setInterval sampling the heap while the handler grows it
    it.live("a handler that grows the heap past its cap ends MEMORY_LIMIT", () =>
      Effect.gen(function*() {
        const r = yield* exec("hog", {})
        expect(r.errorCode).toBe("MEMORY_LIMIT")
        expect(r.error).toContain("32 MB")
      }).pipe(Effect.provide(system())))

    it.effect("handler failures are TOOL_ERROR; a crash is TOOL_ERROR too and the host goes on", () =>
      Effect.gen(function*() {
        const failed = yield* exec("failing", { how: "fail" })
        expect(failed).toMatchObject({ errorCode: "TOOL_ERROR", error: "it broke" })
        const died = yield* exec("failing", { how: "die" })
        expect(died.errorCode).toBe("TOOL_ERROR")
        expect(died.error).toContain("boom")
        expect((yield* exec("echo", { x: 2 })).success).toBe(true)
      }).pipe(Effect.provide(system())))

    it.effect("PathTraversalError is re-raised as a defect, failed or died", () =>
      Effect.gen(function*() {
        for (const how of ["escape", "escapeDefect"] as const) {
          const exit = yield* Effect.exit(exec("failing", { how }))
          expect(Exit.isFailure(exit)).toBe(true)
          if (Exit.isFailure(exit)) {
            expect(Cause.hasDies(exit.cause)).toBe(true)
            const defect = Result.getOrNull(Cause.findDefect(exit.cause))
            expect(defect).toBeInstanceOf(PathTraversalError)
            expect(defect).toMatchObject({ code: "PATH_TRAVERSAL" })
          }
        }
      }).pipe(Effect.provide(system())))

    it.effect("the request-scoped workspace reaches the handler", () => {
      const other = makeTempDirSync()
      fs.writeFileSync(path.join(other, "hello.txt"), "other\n")
      return Effect.gen(function*() {
        expect((yield* exec("read_hello", {})).output).toBe("hello\n")
        const scoped = yield* Workspace.withRoot(exec("read_hello", {}), other)
        expect(scoped.output).toBe("other\n")
      }).pipe(Effect.provide(system()))
    })
  })

  it.effect("gate order: validation, mode, policy, confirmation, rate limit", () => {
    const consulted: Array<string> = []
    const policy = ToolPolicy.layer(({ tool }) =>
      Effect.sync(() => {
        consulted.push(tool.name)
        return Option.none()
      })
    )
    return Effect.gen(function*() {
      expect((yield* exec("guarded", { n: "x" }, { mode: AgentMode.Explore })).errorCode).toBe("INVALID_ARGUMENTS")
      expect((yield* exec("guarded", { n: 1 }, { mode: AgentMode.Explore })).errorCode).toBe("MODE_BLOCKED")
      expect(consulted).toEqual([])
      expect((yield* exec("guarded", { n: 1 })).errorCode).toBe("CONFIRMATION_REQUIRED")
      expect(consulted).toEqual(["guarded"])
    }).pipe(Effect.provide(system({ policy })))
  })

  it.effect("every call runs in an execute_tool span when a tracer is installed", () =>
    Effect.gen(function*() {
      const native = yield* Effect.tracer
      const spans: Array<{ name: string; attributes: Record<string, unknown> }> = []
      const recording = Tracer.make({
        context: native.context,
        span: (options) => {
          const span = native.span(options)
          spans.push({ name: options.name, attributes: Object.fromEntries(span.attributes) })
          return span
        }
      })
      yield* exec("echo", { x: 1 }, { mode: AgentMode.Explore }).pipe(Effect.withTracer(recording))
      expect(spans.map((s) => s.name)).toContain("execute_tool echo")
      yield* exec("echo", { x: 1 })
      expect(spans.length).toBe(1)
    }).pipe(Effect.provide(system())))
})

describe("ToolRegistry versions", () => {
  const v = (version: string, extra: Partial<{ deprecated: string }> = {}) =>
    Tool.make("multi", {
      description: `version ${version}`,
      parameters: Schema.Struct({}),
      readOnly: true,
      version,
      ...extra,
      handler: () => Effect.succeed(version)
    })

  it.effect("latest semver by default, a range on request, deprecation, duplicates refused", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      for (const version of ["1.0.0", "1.10.0", "1.2.0", "2.0.0", "3.0.0-beta.1"]) yield* registry.register(v(version))
      expect(yield* registry.versions("multi")).toEqual(["3.0.0-beta.1", "2.0.0", "1.10.0", "1.2.0", "1.0.0"])
      expect((yield* registry.get("multi")).version).toBe("2.0.0")
      expect((yield* registry.get("multi", "^1")).version).toBe("1.10.0")
      expect((yield* registry.get("multi", "~1.2")).version).toBe("1.2.0")
      expect((yield* registry.get("multi", ">=3.0.0-beta.0")).version).toBe("3.0.0-beta.1")
      const missing = yield* Effect.flip(registry.get("multi", "^4"))
      expect(missing).toMatchObject({ _tag: "ToolNotFound", code: "TOOL_NOT_FOUND", versionRange: "^4" })
      const duplicate = yield* Effect.flip(registry.register(v("2.0.0")))
      expect(duplicate._tag).toBe("InvalidToolDefinition")
      yield* registry.deprecate("multi", "2.0.0", "use 1.10.0")
      expect((yield* registry.get("multi")).version).toBe("1.10.0")
      expect((yield* registry.get("multi", "2.0.0")).version).toBe("2.0.0")
      yield* registry.unregister("multi", "1.10.0")
      expect((yield* registry.get("multi")).version).toBe("1.2.0")
    }).pipe(Effect.provide(ToolRegistry.layerEmpty)))

  it.effect("the executor runs the version asked for", () =>
    Effect.gen(function*() {
      const ts = yield* ToolSystem
      yield* ts.register(v("1.0.0"))
      yield* ts.register(v("2.1.0"))
      expect((yield* ts.execute("multi", {})).output).toBe("2.1.0")
      const r = yield* ts.execute("multi", {}, { versionRange: "1.x" })
      expect(r).toMatchObject({ output: "1.0.0", version: "1.0.0" })
      expect((yield* ts.execute("multi", {}, { versionRange: "^9" })).errorCode).toBe("TOOL_NOT_FOUND")
    }).pipe(Effect.provide(system())))

  it.effect("list filters by tag and mode", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      expect((yield* registry.list({ tags: ["test"] })).map((t) => t.name)).toEqual(["echo"])
      const explore = (yield* registry.list({ mode: AgentMode.Explore })).map((t) => t.name)
      expect(explore).toContain("echo")
      expect(explore).not.toContain("touch")
      expect((yield* registry.list({ mode: AgentMode.Plan })).map((t) => t.name)).toContain("touch")
    }).pipe(Effect.provide(system())))
})
