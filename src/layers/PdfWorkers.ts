/**
 * The host side of the PDF workers: a small pool of warm `worker_threads` Workers, each
 * started with a hard heap cap (`resourceLimits`), lent out as an Effect resource.
 *
 * - The pool is a scoped resource (the `PdfWorkers` service): closing its scope terminates every
 *   worker it started. Nothing starts before the first request.
 * - A worker is taken with `Effect.acquireRelease`: on a clean release it closes its document
 *   and goes back to the pool (unref'd, so it never keeps the process alive, and ended after
 *   `idleMs`); when the borrower was interrupted, or the worker is in doubt, it is terminated.
 * - An idle worker whose time is up is retired at once, in the timer's callback: it leaves the
 *   idle list before `terminate` starts, so a borrow at that very moment starts a new worker
 *   instead of getting one that is exiting.
 * - Every request is an `Effect.callback` whose canceler terminates the worker, so a timeout
 *   that interrupts the handler kills a parse that is still running.
 * - A worker that dies (out of memory: `ERR_WORKER_OUT_OF_MEMORY`) fails the request with a
 *   `PdfWorkerError` and is never reused.
 * - `resourceLimits` does not cover ArrayBuffers, so a watchdog also ends a worker whose
 *   request makes the process's resident memory grow past the limit (see `watch`).
 *
 * The worker's code comes from `tools/builtin/pdf/workerScript.ts` (compiled `pdfWorker.js`, or
 * the sources transpiled on the fly). Workers start with clean Node flags and their output
 * captured, logged at debug level (see `tools/builtin/sandbox/workerOutput.ts`).
 *
 * @since 0.1.0
 */
import * as FileSystem from "effect/FileSystem"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { Worker } from "node:worker_threads"
import type { PdfWorkersService } from "../services/PdfWorkers.js"
import { outputPort, workerIsolation } from "../tools/builtin/sandbox/workerOutput.js"
import { DEFAULT_PDF_POOL_OPTIONS, type PdfPoolOptions } from "./pdfPoolOptions.js"
import { type FailureReason, WorkerResponse, type WorkerRequest } from "../tools/builtin/pdf/protocol.js"
import { workerData, workerEntry } from "../tools/builtin/pdf/workerScript.js"

/** A request to a PDF worker failed, or the worker died. */
export class PdfWorkerError extends Data.TaggedError("PdfWorkerError")<{
  readonly reason: FailureReason | "out-of-memory" | "crashed"
  readonly message: string
}> {}

/** A worker of the pool and its state; lent out by `borrow`. */
interface PooledWorker {
  readonly worker: Worker
  readonly limitMb: number
  uses: number
  dead: boolean
  /** The error the worker died of, if it died of one. */
  error: Error | undefined
  /** Terminated by the memory watchdog. */
  overLimit: boolean
  idleTimer: ReturnType<typeof setTimeout> | undefined
}

/**
 * Counters of the worker pool, for tests and diagnostics.
 *
 * @since 0.1.0
 * @category models
 */
export interface PoolStats {
  /** Workers started since the process began. */
  readonly spawned: number
  /** Workers that have exited (terminated, crashed or retired). */
  readonly exited: number
  /** Workers alive now (busy + idle). */
  readonly live: number
  /** Workers lent out now. */
  readonly busy: number
  /** Workers waiting warm in the pool. */
  readonly idle: number
}

const decode = Schema.decodeUnknownResult(WorkerResponse)

/** How often the memory watchdog samples the process while a request runs. */
const WATCH_EVERY_MS = 50
const MB = 1024 * 1024

/** The longest a clean release waits for a worker to close its document. */
const CLOSE_WAIT = Duration.seconds(2)

const deathOf = (pooled: PooledWorker, code: number | undefined): PdfWorkerError => {
  const error = pooled.error
  if (pooled.overLimit || (error !== undefined && "code" in error && error.code === "ERR_WORKER_OUT_OF_MEMORY")) {
    return new PdfWorkerError({
      reason: "out-of-memory",
      message: `the PDF parser ran out of memory (limit ${pooled.limitMb} MB)`
    })
  }
  const why = error !== undefined ? `: ${error.message}` : code !== undefined ? ` (exit code ${code})` : ""
  return new PdfWorkerError({ reason: "crashed", message: `the PDF parser stopped unexpectedly${why}` })
}

/**
 * A pool of PDF workers owned by the current scope: closing the scope terminates them all.
 * Requires the `FileSystem` the worker's script is read through (when run from sources).
 * What the workers print is logged at debug level with the logger of the scope that made the pool.
 */
export const makePdfWorkerPool = (
  overrides: Partial<PdfPoolOptions> = {}
): Effect.Effect<PdfWorkersService, never, Scope.Scope | FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const options: PdfPoolOptions = { ...DEFAULT_PDF_POOL_OPTIONS, ...overrides }
    const fs = yield* FileSystem.FileSystem
    const context = yield* Effect.context<never>()
    const idle: Array<PooledWorker> = []
    const live = new Set<PooledWorker>()
    const counters = { spawned: 0, terminated: 0, busy: 0 }
    let closed = false

    const spawn = (entry: URL, limitMb: number): PooledWorker => {
      const output = outputPort("pdf", context)
      const worker = new Worker(entry, {
        ...workerIsolation(),
        workerData: { ...workerData(), output },
        transferList: [output],
        resourceLimits: { maxOldGenerationSizeMb: limitMb }
      })
      const pooled: PooledWorker = {
        worker,
        limitMb,
        uses: 0,
        dead: false,
        error: undefined,
        overLimit: false,
        idleTimer: undefined
      }
      counters.spawned++
      live.add(pooled)
      // A worker's error must always have a listener, or it would be thrown in the host.
      worker.on("error", (error) => {
        pooled.error = error
      })
      worker.once("exit", () => {
        pooled.dead = true
        live.delete(pooled)
        counters.terminated++
        clearTimeout(pooled.idleTimer)
        const at = idle.indexOf(pooled)
        if (at >= 0) idle.splice(at, 1)
      })
      return pooled
    }

    /** Terminates a worker and waits until it has exited. */
    const terminate = (pooled: PooledWorker): Effect.Effect<void> =>
      pooled.dead ? Effect.void : Effect.asVoid(Effect.promise(() => pooled.worker.terminate()))

    const take = (limitMb: number): Effect.Effect<PooledWorker, PdfWorkerError> =>
      Effect.gen(function*() {
        if (closed) return yield* new PdfWorkerError({ reason: "crashed", message: "the PDF worker pool is closed" })
        const entry = yield* workerEntry.pipe(
          Effect.provideService(FileSystem.FileSystem, fs),
          Effect.mapError((error) => new PdfWorkerError({ reason: "crashed", message: error.message }))
        )
        const at = idle.findIndex((w) => w.limitMb === limitMb && !w.dead)
        const pooled = at >= 0 ? idle.splice(at, 1)[0] : undefined
        const chosen = pooled ?? spawn(entry, limitMb)
        clearTimeout(chosen.idleTimer)
        chosen.idleTimer = undefined
        chosen.worker.ref()
        chosen.uses++
        counters.busy++
        return chosen
      })

    /**
     * Ends an idle worker whose time is up: out of the idle list first (no borrow can take it
     * while it exits), then terminated. Only an idle worker has a timer: lending one clears it.
     */
    const retire = (pooled: PooledWorker): void => {
      pooled.idleTimer = undefined
      const at = idle.indexOf(pooled)
      if (at >= 0) idle.splice(at, 1)
      Effect.runFork(terminate(pooled))
    }

    const park = (pooled: PooledWorker): Effect.Effect<void> =>
      Effect.suspend(() => {
        const room = idle.filter((w) => w.limitMb === pooled.limitMb).length < options.maxIdle
        if (closed || pooled.dead || !room || pooled.uses >= options.maxUses) {
          return terminate(pooled)
        }
        pooled.worker.unref()
        pooled.idleTimer = setTimeout(() => retire(pooled), options.idleMs)
        pooled.idleTimer.unref()
        idle.push(pooled)
        return Effect.void
      })

    /**
     * `resourceLimits` caps a worker's JS heap, not the ArrayBuffers it allocates (a small
     * FlateDecode bomb inflates into gigabytes of them). While a request runs, the watchdog
     * terminates the worker when the process's resident memory grows past the limit (per busy
     * worker) since the request began.
     */
    const watch = (pooled: PooledWorker): () => void => {
      const baseline = process.memoryUsage.rss()
      const timer = setInterval(() => {
        if (process.memoryUsage.rss() - baseline <= pooled.limitMb * MB * Math.max(1, counters.busy)) return
        clearInterval(timer)
        pooled.overLimit = true
        Effect.runFork(terminate(pooled))
      }, WATCH_EVERY_MS)
      timer.unref()
      return () => clearInterval(timer)
    }

    /**
     * Sends one request and waits for the answer. Interrupting the wait terminates the worker
     * (whatever it is doing); a worker that dies meanwhile fails the request.
     */
    const request = (
      pooled: PooledWorker,
      message: WorkerRequest
    ): Effect.Effect<WorkerResponse, PdfWorkerError> =>
      Effect.callback<WorkerResponse, PdfWorkerError>((resume) => {
        if (pooled.dead) {
          resume(Effect.fail(deathOf(pooled, undefined)))
          return
        }
        const { worker } = pooled
        const unwatch = watch(pooled)
        const cleanup = () => {
          unwatch()
          worker.off("message", onMessage)
          worker.off("error", onError)
          worker.off("exit", onExit)
        }
        const onMessage = (data: unknown) => {
          cleanup()
          const decoded = decode(data)
          resume(
            Result.isSuccess(decoded)
              ? Effect.succeed(decoded.success)
              : Effect.fail(new PdfWorkerError({ reason: "crashed", message: "the PDF parser sent a malformed answer" }))
          )
        }
        const onError = (error: Error) => {
          cleanup()
          pooled.error = error
          resume(Effect.fail(deathOf(pooled, undefined)))
        }
        const onExit = (code: number) => {
          cleanup()
          resume(Effect.fail(deathOf(pooled, code)))
        }
        worker.on("message", onMessage)
        worker.on("error", onError)
        worker.on("exit", onExit)
        worker.postMessage(message)
        return Effect.suspend(() => {
          cleanup()
          return terminate(pooled)
        })
      })

    const release = (pooled: PooledWorker, exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> => {
      counters.busy--
      if (pooled.dead || Exit.hasInterrupts(exit)) return terminate(pooled)
      // releases run uninterruptibly: let the timeout interrupt the wait (which ends the worker)
      return Effect.interruptible(request(pooled, { _tag: "Close" })).pipe(
        Effect.timeout(CLOSE_WAIT),
        Effect.matchEffect({
          onFailure: () => terminate(pooled),
          onSuccess: (answer) => (answer._tag === "Closed" ? park(pooled) : terminate(pooled))
        })
      )
    }

    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        idle.length = 0
        return Effect.forEach([...live], terminate, { discard: true, concurrency: "unbounded" })
      })
    )

    return {
      borrow: (limitMb) => Effect.acquireRelease(take(limitMb), release),
      request,
      stats: Effect.sync((): PoolStats => ({
        spawned: counters.spawned,
        exited: counters.terminated,
        live: live.size,
        busy: counters.busy,
        idle: idle.length
      }))
    }
  })

export type { PooledWorker }
