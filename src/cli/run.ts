/**
 * How the executable runs a program. Its stdout carries only what a command prints (for
 * `call`, exactly one JSON object), so Effect's logs (a "Tool died" error, a pool's warning)
 * and the report of an unexpected failure go to stderr.
 *
 * `NodeRuntime.runMain` would report a failure through Effect's default logger, which writes
 * to stdout, outside any logger the program provides; that is turned off here and done inside
 * the program, under a logger that writes to stderr.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { stripControls } from "../tools/shared/sanitize.js"

/** Exit codes of the executable (`call` documents them in the README). */
export const ExitCode = { ok: 0, failed: 1, usage: 2, pathTraversal: 3 } as const

/** Most characters of one log message on the terminal. */
const LOG_MESSAGE_MAX_CHARS = 64 * 1024

/**
 * A log message as the terminal gets it: without escape sequences, control characters and
 * bidi controls. Messages carry what servers and tools said (a bridged server's tool name, an
 * error's text), which must not move the cursor or recolour the screen.
 */
const cleanMessage = (message: unknown): unknown =>
  typeof message === "string"
    ? stripControls(message, { window: LOG_MESSAGE_MAX_CHARS })
    : Array.isArray(message)
    ? message.map(cleanMessage)
    : message

/**
 * Effect's default logger replaced by the pretty logger on stderr (colored when stderr is a
 * terminal), its messages cleaned of escape sequences and control characters. The tracer's
 * logger (log lines as span events) stays.
 */
export const stderrLogger: Layer.Layer<never> = Layer.suspend(() => {
  const pretty = Logger.consolePretty({ colors: process.stderr.isTTY === true, mode: "tty" })
  const cleaned = Logger.make<unknown, void>((options) => pretty.log({ ...options, message: cleanMessage(options.message) }))
  return Layer.mergeAll(Logger.layer([cleaned, Logger.tracerLogger]), Layer.succeed(Logger.LogToStderr, true))
})

/** Logs a failure (not a plain interruption) before it ends the program. */
const reportFailure = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tapCause(program, (cause) => (Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logError(cause)))

/**
 * Runs the program as the process's main fiber: logs on stderr; the exit code is
 * `process.exitCode` (set by the commands) on success and `ExitCode.failed` on a failure.
 */
export const runCli = <E>(program: Effect.Effect<void, E>): void =>
  NodeRuntime.runMain(Effect.provide(reportFailure(program), stderrLogger), {
    disableErrorReporting: true,
    teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) ? Number(process.exitCode ?? ExitCode.ok) : ExitCode.failed)
  })
