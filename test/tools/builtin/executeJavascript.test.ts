/**
 * `execute_javascript` and its sandbox pool: what the tool answers for code, output, failures,
 * timeouts and limits, and the pool as a resource. The proofs that keep Workers busy for long or
 * start several (out of memory, concurrent calls, an interrupted call's replacement, a Worker
 * stuck in native code) are in `executeJavascript.slow.test.ts`, and the pool's own under
 * bursts in `test/layers/SandboxPool.slow.test.ts`.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { ToolSystem, Workspace } from "../../../src/index.js"
import {
  EXECUTE_JAVASCRIPT_MAX_CODE_BYTES,
  executeJavascript
} from "../../../src/tools/builtin/executeJavascript.js"
import { SandboxPool, type SandboxOutcome } from "../../../src/services/SandboxPool.js"
import { STDOUT_MAX_CHARS } from "../../../src/tools/builtin/sandbox/protocol.js"
import { sandboxSystem } from "./sandbox/system.js"
import { runScript } from "../../helpers/runScript.js"
import { js, outputOf, sandboxDir } from "./executeJavascriptHarness.js"

const dir = sandboxDir()

// the pool's first Worker (QuickJS compiled in it: about half a second of CPU) starts with the
// layer, in the file's setup, rather than inside whichever test happens to call first
const system = sandboxSystem(dir).pipe(Layer.tap((context) => Context.get(context, SandboxPool).run("0", 10_000)))

describe("execute_javascript", () => {
  layer(system, { timeout: 60_000 })((it) => {
    it.effect("is registered with confirmation, the sandbox tags and a 30 s timeout", () =>
      Effect.gen(function*() {
        expect(executeJavascript.requiresConfirmation).toBe(true)
        expect(executeJavascript.tags).toEqual(["sandbox", "builtin"])
        expect(executeJavascript.timeoutMs).toBe(30_000)
        expect(executeJavascript.spec.readOnly).toBe(false)
        const ts = yield* ToolSystem
        const [tool] = yield* ts.openAITools()
        expect(tool?.function.parameters).toMatchObject({
          properties: { code: { type: "string" }, timeout_sec: { type: "number", default: 15 } },
          required: ["code"]
        })
      }))

    it.effect("needs confirmation: without confirm it does not run", () =>
      Effect.gen(function*() {
        const r = yield* js("globalThis.ran = 1; 1", {}, false)
        expect(r.success).toBe(false)
        expect(r.errorCode).toBe("CONFIRMATION_REQUIRED")
        expect(r.confirmed).toBe(false)
      }))

    it.effect("captures console output, one line per call, objects as JSON", () =>
      Effect.gen(function*() {
        const r = yield* js(`console.log("hello", 1, { a: [1, 2] }, null, undefined);
console.error("to stderr, captured too"); console.info(10n, () => 1, function named() {})`)
        expect(r.output).toEqual({
          stdout: "hello 1 {\"a\":[1,2]} null undefined\nto stderr, captured too\n10 [Function (anonymous)] [Function: named]\n",
          result: null
        })
      }))

    it.effect("returns objects, strings, BigInts and undefined as JSON text (or null)", () =>
      Effect.gen(function*() {
        const object = yield* js("({ name: \"x\", list: [1, 2.5, true, null], nested: { big: 2n ** 70n } })")
        expect(object.output).toEqual({
          stdout: "",
          result: "{\"name\":\"x\",\"list\":[1,2.5,true,null],\"nested\":{\"big\":\"1180591620717411303424\"}}"
        })
        const text = yield* js("\"a \\\"quoted\\\" string\"")
        expect(text.output).toEqual({ stdout: "", result: "\"a \\\"quoted\\\" string\"" })
        const nothing = yield* js("let unused = 1")
        expect(nothing.output).toEqual({ stdout: "", result: null })
        const fn = yield* js("(function f() {})")
        expect(fn.output).toEqual({ stdout: "", result: null })
      }))

    it.effect("awaits a Promise as the last value, running its jobs", () =>
      Effect.gen(function*() {
        const r = yield* js(`(async () => {
  const values = await Promise.all([1, 2, 3].map(async (n) => n * 2))
  console.log("inside", values.join(","))
  return values
})()`)
        expect(r.output).toEqual({ stdout: "inside 2,4,6\n", result: "[2,4,6]" })
      }))

    it.effect("reports a syntax error with its message and position", () =>
      Effect.gen(function*() {
        const r = yield* js("const x = ;")
        expect(r.success).toBe(false)
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toMatch(/^JavaScript error: SyntaxError: unexpected token in expression: ';'/)
        expect(r.error).toContain("sandbox.js:1:")
      }))

    it.effect("reports a thrown exception with the output printed before it", () =>
      Effect.gen(function*() {
        const r = yield* js("console.log(\"step 1\"); null.property")
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toMatch(/^JavaScript error: TypeError: cannot read property 'property' of null/)
        expect(r.error).toContain("Output before the failure:\nstep 1")
        const thrown = yield* js("throw { code: 42 }")
        expect(thrown.error).toBe("JavaScript error: uncaught {\"code\":42}")
      }))

    it.effect("reports a rejected last Promise and one that never settles", () =>
      Effect.gen(function*() {
        const rejected = yield* js("Promise.reject(new RangeError(\"nope\"))")
        expect(rejected.error).toMatch(/^JavaScript error: the Promise rejected: RangeError: nope/)
        const pending = yield* js("new Promise(() => {})")
        expect(pending.error).toMatch(/a Promise that never settled/)
      }))

    it.effect("stops the guest at timeout_sec and keeps the output printed so far", () =>
      Effect.gen(function*() {
        // 0.25 s: the guest spins on a core until its deadline (0.5 s cost up to 0.55 s of CPU with the
        // replacement Worker's start); the bounds keep their 50 ms below the deadline
        const r = yield* js("console.log(\"before\"); for (;;) {}", { timeout_sec: 0.25 })
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toMatch(/^The code did not finish within 0.25 s/)
        expect(r.error).toContain("before")
        expect(r.durationMs).toBeGreaterThanOrEqual(200)
        expect(r.durationMs).toBeLessThan(3000)
      }))

    it.effect("caps the output with a note", () =>
      Effect.gen(function*() {
        const r = yield* js("for (let i = 0; i < 100000; i++) console.log(\"line \" + i); \"done\"")
        expect(r.success).toBe(true)
        const { result, stdout } = outputOf(r.output)
        expect(result).toBe("\"done\"")
        expect(stdout.startsWith("line 0\nline 1\n")).toBe(true)
        expect(stdout).toMatch(/\.\.\. \(output truncated: \d+ more characters after the first 65536\)$/)
        expect(stdout.length).toBeLessThan(STDOUT_MAX_CHARS + 200)
      }))

    it.effect("refuses code over the size limit and an empty program", () =>
      Effect.gen(function*() {
        const big = yield* js(`"${"a".repeat(EXECUTE_JAVASCRIPT_MAX_CODE_BYTES)}"`)
        expect(big.errorCode).toBe("TOOL_ERROR")
        expect(big.error).toBe(`code is ${EXECUTE_JAVASCRIPT_MAX_CODE_BYTES + 2} bytes; the limit is 1048576 bytes`)
        const empty = yield* js("")
        expect(empty.errorCode).toBe("INVALID_ARGUMENTS")
        // exactly at the limit: it runs (the string's quotes and `.length` are the other 9 bytes)
        const atLimit = yield* js(`"${"a".repeat(EXECUTE_JAVASCRIPT_MAX_CODE_BYTES - 9)}".length`)
        expect(atLimit.output).toEqual({ stdout: "", result: String(EXECUTE_JAVASCRIPT_MAX_CODE_BYTES - 9) })
      }))

    it.effect("a failure repeats the output printed before it: whole up to 2000 characters, else its end", () =>
      Effect.gen(function*() {
        // 2000 characters printed (1999 and the newline): shown whole
        const whole = yield* js(`console.log("${"w".repeat(1999)}"); throw new Error("x")`)
        expect(whole.error).toMatch(/^JavaScript error: Error: x\n/)
        expect(whole.error?.endsWith(`\nOutput before the failure:\n${"w".repeat(1999)}\n`)).toBe(true)
        // 2001: the last 2000, after "..."
        const cut = yield* js(`console.log("a${"b".repeat(1999)}"); throw new Error("x")`)
        expect(cut.error?.endsWith(`\nOutput before the failure:\n...${"b".repeat(1999)}\n`)).toBe(true)
      }))

    it.effect("starts every call from a fresh global scope", () =>
      Effect.gen(function*() {
        yield* js("globalThis.counter = 1; var declared = 2")
        const r = yield* js("[typeof counter, typeof declared]")
        expect(r.output).toEqual({ stdout: "", result: "[\"undefined\",\"undefined\"]" })
      }))
  })

  describe("what reaches the pool", () => {
    it.effect("timeout_sec is capped at 25 s before it reaches the pool, and given in whole milliseconds", () =>
      Effect.gen(function*() {
        // a pool that records the deadline it is given and answers that the guest ran past it
        const deadlines: Array<number> = []
        const pool = Layer.succeed(SandboxPool, {
          run: (_code, timeoutMs) =>
            Effect.sync((): SandboxOutcome => {
              deadlines.push(timeoutMs)
              return { kind: "timeout", stdout: "" }
            }),
          stats: Effect.succeed({ live: 0, idle: 0, spawned: 0 })
        })
        const layer = ToolSystem.layerNode({
          builtins: false,
          tools: [executeJavascript],
          workspace: Workspace.layerFixed(dir),
          sandbox: pool
        })
        const run = (timeout_sec: number) =>
          Effect.flatMap(ToolSystem, (ts) => ts.execute("execute_javascript", { code: "1", timeout_sec }, { confirm: true }))
        const huge = yield* run(3600).pipe(Effect.provide(layer))
        expect(huge.error).toMatch(/^The code did not finish within 25 s/)
        yield* run(2.5).pipe(Effect.provide(layer))
        yield* run(1e-4).pipe(Effect.provide(layer))
        expect(deadlines).toEqual([25_000, 2500, 1])
      }))

    it.effect("a sandbox that crashed is a ToolError that says so, with the pool's message", () =>
      Effect.gen(function*() {
        const pool = Layer.succeed(SandboxPool, {
          run: () => Effect.succeed<SandboxOutcome>({ kind: "crash", message: "the sandbox worker exited (code 7)" }),
          stats: Effect.succeed({ live: 0, idle: 0, spawned: 0 })
        })
        const layer = ToolSystem.layerNode({
          builtins: false,
          tools: [executeJavascript],
          workspace: Workspace.layerFixed(dir),
          sandbox: pool
        })
        const r = yield* Effect.flatMap(ToolSystem, (ts) => ts.execute("execute_javascript", { code: "1" }, { confirm: true })).pipe(
          Effect.provide(layer)
        )
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toBe("The sandbox failed: the sandbox worker exited (code 7)")
      }))
  })

  describe("the worker pool as a resource", () => {

    it("a pool whose layer is never closed does not keep the process alive", async () => {
      const { code, stdout } = await runScript(new URL("./sandbox/oneCall.ts", import.meta.url))
      // exit code 0: it ended on its own; one kept alive is ended by runScript's 30 s timeout
      // (SIGTERM, code null). Not timed: a loaded machine takes seconds just to start tsx.
      expect(code).toBe(0)
      expect(JSON.parse(stdout)).toEqual({
        outcome: { kind: "ok", stdout: "child\n", result: "42" },
        // its Worker is still alive, warm, when the child is done
        stats: { live: 1, idle: 1, spawned: 1 }
      })
    }, 40_000)
  })
})
