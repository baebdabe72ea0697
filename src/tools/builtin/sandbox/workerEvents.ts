/**
 * Waiting on a sandbox Worker: the first event that ends a wait (an answer, an error, the
 * Worker's exit, or a deadline), and one run request sent and waited for.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { Worker } from "node:worker_threads"
import type { Outcome, RunRequest, WorkerMessage } from "./protocol.js"

/** Whether a Worker's message is one of the protocol's. */
export const isMessage = (message: unknown): message is WorkerMessage =>
  typeof message === "object" && message !== null && "type" in message &&
  (message.type === "ready" || message.type === "done")

/** An error's message with its code, if it has one. */
export const describeError = (error: Error): string => {
  const code = "code" in error && typeof error.code === "string" ? ` (${error.code})` : ""
  return `${error.message}${code}`
}

const isOutOfMemory = (error: Error): boolean => "code" in error && error.code === "ERR_WORKER_OUT_OF_MEMORY"

/** A call's outcome and whether its Worker can serve another call. */
export interface Dispatched {
  readonly outcome: Outcome
  readonly reusable: boolean
  readonly diagnostics?: ReadonlyArray<string>
}

/** What ends a wait on a Worker: a message that answers it, an error, its exit, or the deadline. */
export interface WorkerEvents<A> {
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
export const firstEvent = <A>(
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
export const dispatch = (worker: Worker, request: RunRequest, killAfterMs: number): Effect.Effect<Dispatched> =>
  Effect.callback<Dispatched>((resume) => {
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
