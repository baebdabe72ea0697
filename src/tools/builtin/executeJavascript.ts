/**
 * `execute_javascript`: runs JavaScript in a fresh QuickJS (WebAssembly) context inside a
 * worker thread. No `require`, no `import`, no file system, no network, no timers; `console`
 * output is captured. The guest has a hard memory cap (64 MiB heap inside a WebAssembly memory
 * that cannot grow past 128 MiB), a stack limit, and a deadline enforced twice: an interrupt
 * handler inside, and the host terminating the worker shortly after the deadline.
 *
 * Output: `{ stdout, result }`. `stdout` is what `console.log` (and `info`, `warn`, `error`,
 * `debug`) printed, one line per call, capped at 64 KiB with a note. `result` is the value of
 * the last expression as JSON text (capped at 64 KiB with a note; BigInts as decimal strings),
 * or `null` when it is `undefined` or has no JSON form (a function, a symbol); when it is a
 * Promise, its settled value. JSON text rather than a value, so no guest structure (however
 * deep) is ever rebuilt in the host.
 *
 * Guest failures (a syntax error, an uncaught exception, a rejected last Promise, the deadline)
 * are `ToolError`s naming the error, with the output printed before it. Running out of memory
 * is `MemoryLimitExceeded` (`MEMORY_LIMIT`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { MemoryLimitExceeded, ToolError } from "../../domain/errors.js"
import { SandboxPool } from "../../services/SandboxPool.js"
import { make } from "../defineBuiltin.js"
import { GUEST_MEMORY_LIMIT_BYTES, type Outcome } from "./sandbox/protocol.js"

const TOOL = "execute_javascript"

/** Default guest deadline, in seconds. */
export const EXECUTE_JAVASCRIPT_DEFAULT_TIMEOUT_SEC = 15

/** The longest guest deadline, in seconds: below the tool's 30 s timeout, so a clear message wins. */
export const EXECUTE_JAVASCRIPT_MAX_TIMEOUT_SEC = 25

/** Largest `code` accepted, in UTF-8 bytes. */
export const EXECUTE_JAVASCRIPT_MAX_CODE_BYTES = 1024 * 1024

/** How much of the output printed before a failure its message repeats. */
const STDOUT_IN_ERROR_CHARS = 2000

/** What `execute_javascript` returns. */
export interface ExecuteJavascriptOutput {
  /** What `console` printed, capped. */
  readonly stdout: string
  /** The last value as JSON text, or `null` when it has no JSON form. */
  readonly result: string | null
}

const fail = (message: string) => new ToolError({ tool: TOOL, message })

/** The output printed before a failure, for its message (its end, when long). */
const printedBefore = (stdout: string): string => {
  if (stdout === "") return ""
  const tail = stdout.length > STDOUT_IN_ERROR_CHARS
    ? `...${stdout.slice(stdout.length - STDOUT_IN_ERROR_CHARS)}`
    : stdout
  return `\nOutput before the failure:\n${tail}`
}

/** The guest heap limit, in MiB. */
const GUEST_MEMORY_LIMIT_MB = GUEST_MEMORY_LIMIT_BYTES / (1024 * 1024)

const toResult = (
  outcome: Outcome,
  timeoutSec: number
): Effect.Effect<ExecuteJavascriptOutput, ToolError | MemoryLimitExceeded> => {
  switch (outcome.kind) {
    case "ok":
      return Effect.succeed({ stdout: outcome.stdout, result: outcome.result })
    case "error":
      return Effect.fail(fail(`JavaScript error: ${outcome.message}${printedBefore(outcome.stdout)}`))
    case "timeout":
      return Effect.fail(
        fail(
          `The code did not finish within ${timeoutSec} s and was stopped ` +
            `(infinite loop? raise timeout_sec, up to ${EXECUTE_JAVASCRIPT_MAX_TIMEOUT_SEC})${printedBefore(outcome.stdout)}`
        )
      )
    case "memory":
      return Effect.fail(
        new MemoryLimitExceeded({ tool: TOOL, limitMb: GUEST_MEMORY_LIMIT_MB, detail: printedBefore(outcome.stdout) })
      )
    case "crash":
      return Effect.fail(fail(`The sandbox failed: ${outcome.message}`))
  }
}

/**
 * The `execute_javascript` tool: `{ code, timeout_sec = 15 }` to `{ stdout, result }`.
 *
 * @since 0.1.0
 * @category tools
 */
export const executeJavascript = make(TOOL, {
  description: "Run JavaScript (ES2023, QuickJS) in an isolated sandbox and return what it printed and " +
    "the value of its last expression. No require/import, no files, no network, no timers; " +
    `memory is limited to ${GUEST_MEMORY_LIMIT_MB} MiB. console.log output is captured. ` +
    "Returns { stdout, result } where result is the last value as JSON text (null for undefined); " +
    "a Promise as the last value is awaited. Each call starts from a fresh, empty global scope.",
  parameters: Schema.Struct({
    code: Schema.String.check(Schema.isMinLength(1)).annotate({
      description: "JavaScript source, run as a script; the value of the last expression is returned"
    }),
    timeout_sec: Schema.Number.check(Schema.isGreaterThan(0), Schema.isFinite()).annotate({
      description: `Deadline in seconds (at most ${EXECUTE_JAVASCRIPT_MAX_TIMEOUT_SEC}; larger values are capped)`
    }).pipe(Schema.withDecodingDefaultType(Effect.succeed(EXECUTE_JAVASCRIPT_DEFAULT_TIMEOUT_SEC)))
  }),
  requiresConfirmation: true,
  tags: ["sandbox", "builtin"],
  timeout: "30 seconds",
  handler: ({ code, timeout_sec }) =>
    Effect.gen(function*() {
      const bytes = Buffer.byteLength(code, "utf8")
      if (bytes > EXECUTE_JAVASCRIPT_MAX_CODE_BYTES) {
        return yield* fail(`code is ${bytes} bytes; the limit is ${EXECUTE_JAVASCRIPT_MAX_CODE_BYTES} bytes`)
      }
      const timeoutSec = Math.min(timeout_sec, EXECUTE_JAVASCRIPT_MAX_TIMEOUT_SEC)
      const pool = yield* SandboxPool
      const outcome = yield* pool.run(code, Math.max(1, Math.round(timeoutSec * 1000)))
      return yield* toResult(outcome, timeoutSec)
    })
})
