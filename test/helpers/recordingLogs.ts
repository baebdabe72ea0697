/**
 * A logger that records every line an effect logs, for tests that assert what was logged.
 */
import { type Cause, Effect, Logger, type LogLevel } from "effect"

/** One logged line. */
export interface Logged {
  readonly level: LogLevel.LogLevel
  readonly message: unknown
  readonly cause: Cause.Cause<unknown>
}

/**
 * Runs the effect `f` makes with a logger that records every line (in place of the loggers
 * installed, so nothing is printed); `f` gets the lines, to look at them while it runs.
 */
export const recordingLogsWith = <A, E, R>(f: (lines: ReadonlyArray<Logged>) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const lines: Array<Logged> = []
    const recorder = Logger.make(({ cause, logLevel, message }) => void lines.push({ level: logLevel, message, cause }))
    const result = yield* f(lines).pipe(Effect.provide(Logger.layer([recorder])))
    return [result, lines] as const
  })

/** Runs `effect` with a logger that records every line (and no other logger). */
export const recordingLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) => recordingLogsWith(() => effect)

/** A logged line's message as text (a list of parts joined by spaces). */
export const textOf = (line: Logged): string =>
  Array.isArray(line.message) ? line.message.map(String).join(" ") : String(line.message)
