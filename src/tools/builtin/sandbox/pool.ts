/**
 * The host side of the sandbox: a small pool of warm `worker_threads` Workers, each holding a
 * loaded QuickJS module, so a call pays a fresh runtime (~1.5 ms a call, measured from dist)
 * instead of a Worker and module start (~150 ms from dist, ~0.5 s under tsx).
 *
 * - Lazy: nothing starts at import time or when the layer is built; the first call starts the
 *   first Worker. The `SandboxPool` layer's scope owns the pool: closing it terminates every Worker.
 * - Every Worker is `unref()`ed: an idle pool never keeps the process alive. A call in progress
 *   does (its deadline timer is a normal timer).
 * - The host enforces the deadline: at `timeoutMs + graceMs` the Worker is terminated, whatever
 *   the guest is doing (native work the interrupt handler cannot stop), and replaced in the
 *   background. An interrupted call (the tool's timeout) terminates its Worker the same way.
 * - A Worker that crashed, ran out of memory, or whose WebAssembly memory grew is not reused.
 *
 * @since 0.1.0
 */
import { Worker } from "node:worker_threads"
import { Effect, Either, Exit, type Scope } from "effect"
import type { SandboxPoolService } from "../../../services/SandboxPool.js"
import type { Outcome, RunRequest, WorkerMessage } from "./protocol.js"
import { workerEntry } from "./workerEntry.js"

/** How the pool sizes itself and how long it waits. */
export interface SandboxPoolOptions {
  /** Idle Workers kept ready once the pool is in use. */
  readonly warm: number
  /** Most idle Workers kept; more are terminated when their call ends. */
  readonly maxIdle: number
  /** Most calls running at once; more wait for a Worker. */
  readonly maxWorkers: number
  /** How long after the guest's deadline the host terminates the Worker. */
  readonly graceMs: number
  /** How long a Worker may take to load its module. */
  readonly startTimeoutMs: number
}

/** The default sizes and waits. */
export const DEFAULT_POOL_OPTIONS: SandboxPoolOptions = {
  warm: 1,
  maxIdle: 2,
  maxWorkers: 4,
  graceMs: 500,
  startTimeoutMs: 20_000
}

/** V8 limits of each Worker (the guest itself lives in the capped WebAssembly memory). */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16, stackSizeMb: 8 }

const isMessage = (message: unknown): message is WorkerMessage =>
  typeof message === "object" && message !== null && "type" in message &&
  (message.type === "ready" || message.type === "done")

const describeError = (error: Error): string => {
  const code = "code" in error && typeof error.code === "string" ? ` (${error.code})` : ""
  return `${error.message}${code}`
}

const isOutOfMemory = (error: Error): boolean => "code" in error && error.code === "ERR_WORKER_OUT_OF_MEMORY"

/** A call's outcome and whether its Worker can serve another call. */
interface Dispatched {
  readonly outcome: Outcome
  readonly reusable: boolean
  readonly diagnostics?: ReadonlyArray<string>
}

/** What ends a wait on a Worker: a message that answers it, an error, its exit, or the deadline. */
interface WorkerEvents<A> {
  /** The wait's value for a message, or `undefined` when the message is not the answer. */
  readonly message: (message: unknown) => A | undefined
  readonly error: (error: Error) => A
  readonly exit: (code: number) => A
  readonly timeout: () => A
}

/**
 * Listens for the first event that ends a wait and hands its value to `settle`, once.
 * Returns `stop`, which removes the listeners and says whether the wait had already ended.
 * `keepAlive`: the deadline timer keeps the process alive (a call waits on it).
 */
const firstEvent = <A>(
  worker: Worker,
  events: WorkerEvents<A>,
  timeoutMs: number,
  keepAlive: boolean,
  settle: (value: A) => void
): () => boolean => {
  let settled = false
  const stop = () => {
    const already = settled
    settled = true
    clearTimeout(timer)
    worker.off("message", onMessage)
    worker.off("error", onError)
    worker.off("exit", onExit)
    return already
  }
  const end = (value: A) => {
    if (!stop()) settle(value)
  }
  const onMessage = (message: unknown) => {
    if (settled) return
    const value = events.message(message)
    if (value !== undefined) end(value)
  }
  const onError = (error: Error) => end(events.error(error))
  const onExit = (code: number) => end(events.exit(code))
  const timer = setTimeout(() => end(events.timeout()), timeoutMs)
  if (!keepAlive) timer.unref()
  worker.on("message", onMessage)
  worker.on("error", onError)
  worker.on("exit", onExit)
  return stop
}

/** Sends one request and waits for its outcome, the Worker's death, or the host deadline. */
const dispatch = (worker: Worker, request: RunRequest, killAfterMs: number): Effect.Effect<Dispatched> =>
  Effect.async<Dispatched>((resume) => {
    const stop = firstEvent<Dispatched>(worker, {
      message: (message) =>
        isMessage(message) && message.type === "done" && message.id === request.id
          ? { outcome: message.outcome, reusable: !message.recycle, diagnostics: message.diagnostics }
          : undefined,
      error: (error) => ({
        outcome: isOutOfMemory(error)
          ? { kind: "memory", stdout: "" }
          : { kind: "crash", message: `the sandbox worker failed: ${describeError(error)}` },
        reusable: false
      }),
      exit: (code) => ({ outcome: { kind: "crash", message: `the sandbox worker exited (code ${code})` }, reusable: false }),
      timeout: () => ({ outcome: { kind: "timeout", stdout: "" }, reusable: false })
    }, killAfterMs, true, (dispatched) => resume(Effect.succeed(dispatched)))
    worker.postMessage(request)
    return Effect.sync(stop)
  })

/** A pool of sandbox Workers; the `SandboxPool` service wraps one in a scope. */
export class SandboxWorkers {
  private readonly idle: Array<Worker> = []
  private readonly live = new Set<Worker>()
  private readonly permits: Effect.Semaphore
  private refilling = 0
  private nextId = 0
  private closed = false

  constructor(readonly options: SandboxPoolOptions = DEFAULT_POOL_OPTIONS) {
    this.permits = Effect.unsafeMakeSemaphore(options.maxWorkers)
  }

  /** Workers alive (idle or busy), and idle ones. */
  stats(): { readonly live: number; readonly idle: number } {
    return { live: this.live.size, idle: this.idle.length }
  }

  /** Evaluates `code` in a fresh guest runtime with a guest deadline of `timeoutMs`. */
  run(code: string, timeoutMs: number): Effect.Effect<Outcome> {
    const request: RunRequest = { id: this.nextId++, code, timeoutMs }
    const call = Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(restore(this.checkout()), (worker) =>
        restore(dispatch(worker, request, timeoutMs + this.options.graceMs)).pipe(
          Effect.onExit((exit) =>
            Exit.isSuccess(exit) && exit.value.reusable ? this.checkin(worker) : this.discard(worker)
          ),
          Effect.tap(({ diagnostics }) =>
            diagnostics === undefined || diagnostics.length === 0
              ? Effect.void
              : Effect.logWarning(`sandbox: the QuickJS module reported: ${diagnostics.join("; ")}`)
          ),
          Effect.map((dispatched) => dispatched.outcome)
        ))
    )
    return this.permits.withPermits(1)(
      Effect.catchAll(call, (message) => Effect.succeed<Outcome>({ kind: "crash", message }))
    )
  }

  /** Terminates every Worker; later calls on this pool fail. */
  shutdown(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.closed = true
      this.idle.length = 0
      return Effect.forEach([...this.live], (worker) => this.terminate(worker), { discard: true, concurrency: "unbounded" })
    })
  }

  private checkout(): Effect.Effect<Worker, string> {
    return Effect.suspend(() => {
      if (this.closed) return Effect.fail("the sandbox pool is shut down")
      const worker = this.idle.pop()
      return worker === undefined ? this.spawn(true) : Effect.succeed(worker)
    })
  }

  private checkin(worker: Worker): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.closed || !this.live.has(worker) || this.idle.length >= this.options.maxIdle) {
        return this.discard(worker)
      }
      this.idle.push(worker)
      return Effect.void
    })
  }

  /** Terminates a Worker that must not be reused and starts a replacement in the background. */
  private discard(worker: Worker): Effect.Effect<void> {
    return Effect.zipRight(this.terminate(worker), this.refill())
  }

  private terminate(worker: Worker): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.forget(worker)
      return Effect.tryPromise(() => worker.terminate()).pipe(
        Effect.catchAll((error) => Effect.logWarning("sandbox: terminating a worker failed", error.cause))
      )
    })
  }

  private forget(worker: Worker): void {
    this.live.delete(worker)
    const at = this.idle.indexOf(worker)
    if (at >= 0) this.idle.splice(at, 1)
  }

  private refill(): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.closed || this.idle.length + this.refilling >= this.options.warm) return Effect.void
      this.refilling++
      const start = this.spawn(false).pipe(
        Effect.flatMap((worker) => this.checkin(worker)),
        Effect.catchAll((message) =>
          this.closed ? Effect.void : Effect.logWarning(`sandbox: a replacement worker did not start: ${message}`)
        ),
        Effect.ensuring(Effect.sync(() => this.refilling--))
      )
      return Effect.asVoid(Effect.forkDaemon(start))
    })
  }

  /**
   * Starts a Worker and waits until its module is loaded. `forCall`: a call waits for it, so
   * its start timer keeps the process alive; a background replacement does not.
   */
  private spawn(forCall: boolean): Effect.Effect<Worker, string> {
    return Effect.async<Worker, string>((resume) => {
      if (this.closed) {
        resume(Effect.fail("the sandbox pool is shut down"))
        return
      }
      const entry = workerEntry()
      const worker = new Worker(entry.url, { execArgv: [], env: {}, resourceLimits: RESOURCE_LIMITS })
      worker.unref()
      this.live.add(worker)
      // Listeners for the Worker's whole life: an 'error' without a listener would crash the host.
      worker.on("error", (error) => {
        this.forget(worker)
        Effect.runFork(Effect.logWarning(`sandbox: a worker failed: ${describeError(error)}`))
      })
      worker.on("exit", () => this.forget(worker))

      const stop = firstEvent<Either.Either<Worker, string>>(worker, {
        message: (message) => (isMessage(message) && message.type === "ready" ? Either.right(worker) : undefined),
        error: (error) => Either.left(`the sandbox worker failed to start: ${describeError(error)}`),
        exit: (code) => Either.left(`the sandbox worker exited while starting (code ${code})`),
        timeout: () => Either.left(`the sandbox worker did not start within ${this.options.startTimeoutMs} ms`)
      }, this.options.startTimeoutMs, forCall, (started) =>
        resume(
          Either.isRight(started)
            ? Effect.succeed(started.right)
            : Effect.zipRight(this.terminate(worker), Effect.fail(started.left))
        ))
      return Effect.suspend(() => (stop() ? Effect.void : this.terminate(worker)))
    })
  }
}

/** A pool as a scoped resource: the scope's end terminates its Workers. */
export const makeSandboxPool = (
  options: Partial<SandboxPoolOptions> = {}
): Effect.Effect<SandboxPoolService, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, ...options })),
      (pool) => pool.shutdown()
    ),
    (pool) => ({
      run: (code, timeoutMs) => pool.run(code, timeoutMs),
      stats: Effect.sync(() => pool.stats())
    })
  )
