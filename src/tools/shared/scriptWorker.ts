/**
 * Running a synchronous library call in a short-lived worker thread, with a deadline and a
 * heap cap, for work whose cost on hostile input cannot be bounded well enough to do it on
 * the main thread (where it would stall every fiber, and no timeout could stop it).
 *
 * The worker is a CommonJS script given as source (`eval: true`) that `require`s the packages
 * it needs by the absolute paths the caller resolves (`workerData`), as
 * `ported/web/htmlToText.ts` does: no file of its own has to sit next to a bundle. It answers
 * with one message. It is terminated at the deadline, on interruption, or once it answered.
 * Starting one costs about 50-70 ms.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"

/** The worker did not answer: too slow, out of memory, or it failed. */
export class ScriptWorkerFailed extends Data.TaggedError("ScriptWorkerFailed")<{
  readonly reason: "deadline" | "memory" | "error"
  readonly message: string
}> {}

/** How a worker runs. */
export interface ScriptWorkerOptions {
  readonly deadline: Duration.Input
  readonly heapMb: number
  /** What it does, for messages: "the search", "the YAML parser". */
  readonly what: string
  /** Buffers in `workerData` moved to the worker rather than copied (a copy of 10 MiB blocks for tens of ms). */
  readonly transfer?: ReadonlyArray<ArrayBuffer>
}

const resolver = createRequire(import.meta.url)
const resolved = new Map<string, string>()

/** The absolute path of a package's CommonJS entry, resolved once. */
export const modulePath = (specifier: string): string => {
  let path = resolved.get(specifier)
  if (path === undefined) {
    path = resolver.resolve(specifier)
    resolved.set(specifier, path)
  }
  return path
}

/** Runs `source` with `workerData`; succeeds with the first message it posts. */
export const runScriptWorker = (
  source: string,
  workerData: unknown,
  options: ScriptWorkerOptions
): Effect.Effect<unknown, ScriptWorkerFailed> =>
  Effect.acquireUseRelease(
    Effect.sync(() =>
      new Worker(source, {
        eval: true,
        // not the host's loaders or inspector flags (a test runner's, say)
        execArgv: [],
        // its output is not the host's
        stdout: true,
        stderr: true,
        workerData,
        ...(options.transfer === undefined ? {} : { transferList: [...options.transfer] }),
        resourceLimits: { maxOldGenerationSizeMb: options.heapMb }
      })
    ),
    (worker) =>
      Effect.callback<unknown, ScriptWorkerFailed>((resume) => {
        worker.stdout.resume()
        worker.stderr.resume()
        worker.once("message", (answer: unknown) => resume(Effect.succeed(answer)))
        worker.once("error", (error: Error & { code?: unknown }) =>
          resume(Effect.fail(
            error.code === "ERR_WORKER_OUT_OF_MEMORY"
              ? new ScriptWorkerFailed({ reason: "memory", message: `${options.what} needs more than ${options.heapMb} MiB` })
              : new ScriptWorkerFailed({ reason: "error", message: `${options.what} failed: ${error.message}` })
          )))
        worker.once("exit", (code) =>
          resume(Effect.fail(new ScriptWorkerFailed({ reason: "error", message: `${options.what} stopped (exit code ${code})` }))))
      }).pipe(
        Effect.timeoutOrElse({
          duration: options.deadline,
          orElse: () =>
            Effect.fail(
              new ScriptWorkerFailed({
                reason: "deadline",
                message: `${options.what} did not finish within ${Duration.format(Duration.fromInputUnsafe(options.deadline))}`
              })
            )
        })
      ),
    (worker) => Effect.promise(() => worker.terminate())
  )
