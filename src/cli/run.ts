/**
 * How the executable runs a program. Its stdout carries only what a command prints (for
 * `call`, exactly one JSON object), so Effect's logs (a "Tool died" error, a pool's warning)
 * and the report of an unexpected failure go to stderr.
 *
 * `NodeRuntime.runMain` would install a pretty logger that writes to stdout and report a
 * failure through it, outside any logger the program provides; both are turned off here and
 * done inside the program, under a logger that writes to stderr.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"

/** Exit codes of the executable (`call` documents them in the README). */
export const ExitCode = { ok: 0, failed: 1, usage: 2, pathTraversal: 3 } as const

/** Effect's default logger replaced by the pretty logger on stderr (colored when stderr is a terminal). */
export const stderrLogger: Layer.Layer<never> = Layer.suspend(() =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.prettyLogger({ stderr: true, colors: process.stderr.isTTY === true })
  )
)

/** Logs a failure (not a plain interruption) before it ends the program. */
const reportFailure = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tapErrorCause(program, (cause) => (Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError(cause)))

/**
 * Runs the program as the process's main fiber: logs on stderr; the exit code is
 * `process.exitCode` (set by the commands) on success and `ExitCode.failed` on a failure.
 */
export const runCli = <E>(program: Effect.Effect<void, E>): void =>
  NodeRuntime.runMain(Effect.provide(reportFailure(program), stderrLogger), {
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) ? Number(process.exitCode ?? ExitCode.ok) : ExitCode.failed)
  })
