/**
 * The host side of the sandbox: a small pool of warm `worker_threads` Workers, each holding a
 * loaded QuickJS module, so a call pays a fresh runtime (~1.5 ms a call, measured from dist)
 * instead of a Worker and module start (~150 ms from dist, ~0.5 s under tsx).
 *
 * - Lazy: nothing starts at import time or when the layer is built; the first call starts the
 *   first Worker. The `SandboxPool` layer's scope owns the pool: closing it terminates every Worker.
 * - Every Worker is `unref()`ed: an idle pool never keeps the process alive. A call in progress
 *   does (its deadline timer is a normal timer).
 * - `maxIdle` Workers stay warm for as long as the pool lives. The extra ones a burst of calls
 *   started (up to `maxWorkers`) stay warm `idleMs` after their last call (an unref'd timer), so
 *   a burst that follows pays no Worker start; an extra Worker whose time is up leaves the idle
 *   list at once, before it is terminated, so no call can take it.
 * - Workers start with clean Node flags and their output captured, logged at debug level (see
 *   `tools/builtin/sandbox/workerOutput.ts`).
 * - The host enforces the deadline: at `timeoutMs + graceMs` the Worker is terminated, whatever
 *   the guest is doing (native work the interrupt handler cannot stop), and replaced in the
 *   background. An interrupted call (the tool's timeout) terminates its Worker the same way.
 * - A Worker that crashed, ran out of memory, or whose WebAssembly memory grew is not reused.
 *
 * @since 0.1.0
 */
import { Worker } from "node:worker_threads"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type { SandboxPoolService } from "../services/SandboxPool.js"
import type { Outcome, RunRequest } from "../tools/builtin/sandbox/protocol.js"
import { describeError, dispatch, firstEvent, isMessage } from "../tools/builtin/sandbox/workerEvents.js"
import { workerEntry } from "../tools/builtin/sandbox/workerEntry.js"
import { outputPort, workerIsolation } from "../tools/builtin/sandbox/workerOutput.js"

/**
 * How the pool sizes itself and how long it waits.
 *
 * @since 0.1.0
 * @category models
 */
export interface SandboxPoolOptions {
  /** Idle Workers kept ready once the pool is in use. */
  readonly warm: number
  /** Idle Workers kept for as long as the pool lives. */
  readonly maxIdle: number
  /** Most calls running at once; more wait for a Worker. */
  readonly maxWorkers: number
  /**
   * How long a Worker beyond `maxIdle` (one a burst started) stays warm after its last call
   * before it is terminated; 0: it is terminated when its call ends.
   */
  readonly idleMs: number
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
  idleMs: 10_000,
  graceMs: 500,
  startTimeoutMs: 20_000
}

/** V8 limits of each Worker (the guest itself lives in the capped WebAssembly memory). */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16, stackSizeMb: 8 }

/**
 * Counters of the pool, for tests and diagnostics.
 *
 * @since 0.1.0
 * @category models
 */
export interface SandboxPoolStats {
  /** Workers alive (idle or busy). */
  readonly live: number
  /** Workers waiting for a call. */
  readonly idle: number
  /** Workers started since the pool was made. */
  readonly spawned: number
}

/** A pool of sandbox Workers; the `SandboxPool` service wraps one in a scope. */
export class SandboxWorkers {
  private readonly idle: Array<Worker> = []
  private readonly live = new Set<Worker>()
  /** The idle-time timers of idle Workers. */
  private readonly idleTimers = new Map<Worker, ReturnType<typeof setTimeout>>()
  private readonly permits: Semaphore.Semaphore
  private refilling = 0
  private spawned = 0
  private nextId = 0
  private closed = false

  /** Runs the pool's own background work (replacements, its log lines) with the owner's context. */
  private readonly fork: <A, E>(effect: Effect.Effect<A, E>) => unknown

  /**
   * `context`: what the pool's own background work (replacements, its log lines, forwarded
   * Worker output) runs with, so the owner's logger applies. Default: an empty context
   * (Effect's default services).
   */
  constructor(
    readonly options: SandboxPoolOptions = DEFAULT_POOL_OPTIONS,
    private readonly context: Context.Context<never> = Context.empty()
  ) {
    this.permits = Semaphore.makeUnsafe(options.maxWorkers)
    this.fork = Effect.runForkWith(context)
  }

  /** Workers alive (idle or busy), idle ones, and how many were started. */
  stats(): SandboxPoolStats {
    return { live: this.live.size, idle: this.idle.length, spawned: this.spawned }
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
          // an aborted assertion when a runtime is disposed, say: the Worker is replaced, the call's outcome stands
          Effect.tap(({ diagnostics }) =>
            diagnostics === undefined || diagnostics.length === 0
              ? Effect.void
              : Effect.logDebug(`sandbox: the QuickJS module reported: ${diagnostics.join("; ")}`)
          ),
          Effect.map((dispatched) => dispatched.outcome)
        ))
    )
    return this.permits.withPermits(1)(
      Effect.catch(call, (message) => Effect.succeed<Outcome>({ kind: "crash", message }))
    )
  }

  /** Terminates every Worker; later calls on this pool fail. */
  shutdown(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.closed = true
      for (const timer of this.idleTimers.values()) clearTimeout(timer)
      this.idleTimers.clear()
      this.idle.length = 0
      return Effect.forEach([...this.live], (worker) => this.terminate(worker), { discard: true, concurrency: "unbounded" })
    })
  }

  private checkout(): Effect.Effect<Worker, string> {
    return Effect.suspend(() => {
      // shut down: no Worker is idle, and `spawn` refuses
      const worker = this.idle.pop()
      if (worker === undefined) return this.spawn(true)
      this.stopIdleTimer(worker)
      return Effect.succeed(worker)
    })
  }

  /**
   * Puts a Worker back. Up to `maxIdle` stay; one beyond them (a burst's) stays `idleMs`, or is
   * terminated now when `idleMs` is 0. Every idle Worker gets a timer: when it fires, the Worker
   * is terminated if more than `maxIdle` are idle (see `expire`).
   */
  private checkin(worker: Worker): Effect.Effect<void> {
    return Effect.suspend(() => {
      const { idleMs, maxIdle, maxWorkers } = this.options
      // a call answered just as the pool shut down
      const gone = this.closed || !this.live.has(worker)
      const extra = this.idle.length >= maxIdle
      // a guard: maxWorkers Workers idle and one more to check in takes a replacement started while all were busy
      const full = this.idle.length >= maxWorkers
      if (gone || (extra && (idleMs <= 0 || full))) return this.discard(worker)
      this.idle.push(worker)
      if (idleMs > 0) {
        const timer = setTimeout(() => this.expire(worker), idleMs)
        timer.unref()
        this.idleTimers.set(worker, timer)
      }
      return Effect.void
    })
  }

  private stopIdleTimer(worker: Worker): void {
    clearTimeout(this.idleTimers.get(worker))
    this.idleTimers.delete(worker)
  }

  /**
   * A Worker has been idle `idleMs`: terminated when more than `maxIdle` are idle, else kept
   * (one of the `maxIdle`). Taken out of the idle list before `terminate` starts, in this
   * callback, so no call can take a Worker that is exiting.
   */
  private expire(worker: Worker): void {
    this.idleTimers.delete(worker)
    if (this.closed || this.idle.length <= this.options.maxIdle || !this.idle.includes(worker)) return
    this.forget(worker)
    this.fork(this.terminate(worker))
  }

  /** Terminates a Worker that must not be reused and starts a replacement in the background. */
  private discard(worker: Worker): Effect.Effect<void> {
    return Effect.andThen(this.terminate(worker), this.refill())
  }

  private terminate(worker: Worker): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.forget(worker)
      return Effect.tryPromise(() => worker.terminate()).pipe(
        // worker.terminate() never rejects in Node 20 (it resolves with the exit code); the catch keeps a future
        // rejection from failing the call that discards the Worker
        Effect.catch((error) => Effect.logWarning("sandbox: terminating a worker failed", error.cause))
      )
    })
  }

  private forget(worker: Worker): void {
    this.stopIdleTimer(worker)
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
        Effect.catch((message) =>
          this.closed ? Effect.void : Effect.logWarning(`sandbox: a replacement worker did not start: ${message}`)
        ),
        Effect.ensuring(Effect.sync(() => this.refilling--))
      )
      return Effect.sync(() => {
        this.fork(start)
      })
    })
  }

  /**
   * Starts a Worker and waits until its module is loaded. `forCall`: a call waits for it, so
   * its start timer keeps the process alive; a background replacement does not.
   */
  private spawn(forCall: boolean): Effect.Effect<Worker, string> {
    return Effect.callback<Worker, string>((resume) => {
      if (this.closed) {
        resume(Effect.fail("the sandbox pool is shut down"))
        return
      }
      const entry = workerEntry()
      const output = outputPort("sandbox", this.context)
      const worker = new Worker(entry, {
        ...workerIsolation(),
        env: {},
        resourceLimits: RESOURCE_LIMITS,
        workerData: { output },
        transferList: [output]
      })
      worker.unref()
      this.spawned++
      this.live.add(worker)
      // Listeners for the Worker's whole life: an 'error' without a listener would crash the host.
      worker.on("error", (error) => {
        this.forget(worker)
        this.fork(Effect.logWarning(`sandbox: a worker failed: ${describeError(error)}`))
      })
      worker.on("exit", () => this.forget(worker))

      const stop = firstEvent<Result.Result<Worker, string>>(worker, {
        message: (message) => (isMessage(message) && message.type === "ready" ? Result.succeed(worker) : undefined),
        error: (error) => Result.fail(`the sandbox worker failed to start: ${describeError(error)}`),
        exit: (code) => Result.fail(`the sandbox worker exited while starting (code ${code})`),
        timeout: () => Result.fail(`the sandbox worker did not start within ${this.options.startTimeoutMs} ms`)
      }, this.options.startTimeoutMs, forCall, (started) =>
        resume(
          Result.isSuccess(started)
            ? Effect.succeed(started.success)
            : Effect.andThen(this.terminate(worker), Effect.fail(started.failure))
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
      Effect.map(Effect.context<never>(), (context) => new SandboxWorkers({ ...DEFAULT_POOL_OPTIONS, ...options }, context)),
      (pool) => pool.shutdown()
    ),
    (pool) => ({
      run: (code, timeoutMs) => pool.run(code, timeoutMs),
      stats: Effect.sync(() => pool.stats())
    })
  )
