/**
 * The worker threads of one `search_files` call (the host side; `searchWorkerSource.ts` is the
 * workers' code): a scoped resource, started when a search turns out to be big, ended when
 * the call ends. Closing the scope terminates every worker and waits for it to stop, so a
 * directory descriptor a worker may still be using is closed only after that (the caller
 * acquires the directories it hands out before the workers, see `searchTree.ts`).
 *
 * Jobs go out through a channel per worker, at most `JOBS_PER_WORKER` at a time each; answers
 * are taken without waiting (`poll`, `receiveMessageOnPort`) between the main thread's own
 * steps, or awaited (`wait`) when it has nothing else to do. Once a worker has stopped (an
 * error ends it), each job it did not answer is answered with `undefined`: the main thread
 * then does it itself.
 *
 * A worker that answered every job it was given is kept for the next search, idle for at most
 * `IDLE_WORKER_MS` (unreferenced: it keeps no process alive): starting one costs tens of
 * milliseconds, and its code runs unoptimized for the first few thousand files. Each search
 * tells it its own test first (`setup`). A worker with a job unanswered when the search ends
 * (the limit was reached, the call interrupted) is terminated as before: only a worker that
 * holds no descriptor path of the search is kept, so a descriptor number the next search
 * reuses can never be read with an old job.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads"
import { modulePath } from "../../shared/scriptWorker.js"
import { fdDir, READ_FLAGS } from "../../shared/safeFsNode.js"
import type { Prefilter } from "./searchMatch.js"
import {
  isWorkerAnswer,
  WORKER_SOURCE,
  type WorkerAnswer,
  type WorkerJob,
  type WorkerSetup,
  type WorkerStart
} from "./searchWorkerSource.js"

/**
 * Jobs one worker holds at a time: one being done and some waiting, so that it does not idle
 * while the main thread is busy with a chunk of its own.
 */
export const JOBS_PER_WORKER = 3

/** A worker's heap cap: it holds one block and the bytes of one job's matching files. */
const WORKER_HEAP_MB = 64

/** An answered job: the worker's answer, or `undefined` when the worker stopped before answering. */
export interface Answered {
  readonly id: number
  readonly answer: WorkerAnswer | undefined
}

/** The workers of one search. */
export interface SearchWorkers {
  /** Whether a worker has room for a job. */
  readonly room: () => boolean
  /** Hands the files to a worker with room for them: the job's id, or `undefined` when all are busy. */
  readonly submit: (prefix: string, names: ReadonlyArray<string>) => number | undefined
  /** The jobs answered since the last call (never waits). */
  readonly poll: () => ReadonlyArray<Answered>
  /** Jobs handed out and not yet returned by `poll`. */
  readonly outstanding: () => number
  /** Waits until `poll` has something to return (at once if it has). */
  readonly wait: Effect.Effect<void>
  /** The errors that ended workers (their jobs came back unanswered). */
  readonly errors: () => ReadonlyArray<Error>
}

/** Most worker threads one search starts, and most kept idle between searches. */
export const SEARCH_MAX_WORKERS = 3

/** How long an idle worker is kept for the next search. */
export const IDLE_WORKER_MS = 5000

/** A worker thread and its channel, over searches. */
interface Thread {
  readonly worker: Worker
  readonly port: MessagePort
  /** Ends it when it has been idle for `IDLE_WORKER_MS`. */
  timer: ReturnType<typeof setTimeout> | undefined
}

/** A worker in one search. */
interface Running {
  readonly thread: Thread
  /** Ids of the jobs it holds. */
  readonly jobs: Set<number>
  alive: boolean
  /** Its listeners for this search (taken off when the search lets it go). */
  readonly onMessage: (message: unknown) => void
  readonly onError: (error: Error) => void
  readonly onExit: () => void
}

/** Idle workers, most recently used last. */
const idle: Array<Thread> = []

const terminate = (thread: Thread): Promise<unknown> => {
  thread.port.close()
  return thread.worker.terminate()
}

/** An idle worker, or a new one. */
const takeThread = (): Thread => {
  const kept = idle.pop()
  if (kept !== undefined) {
    if (kept.timer !== undefined) clearTimeout(kept.timer)
    kept.timer = undefined
    kept.worker.ref()
    kept.port.ref()
    return kept
  }
  const { port1, port2 } = new MessageChannel()
  const start: WorkerStart = { port: port2, re2Module: modulePath("re2js"), openFlags: READ_FLAGS, fdDir: fdDir() }
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // not the host's loaders or inspector flags; nothing it prints reaches the host's output
    // (no test reaches these four: a list with any word that is no flag drops the host's flags too, the worker's
    // code prints nothing, and no job can grow its heap to the cap in a test's time)
    execArgv: [],
    stdout: true,
    stderr: true,
    workerData: start,
    transferList: [port2],
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB }
  })
  const thread: Thread = { worker, port: port1, timer: undefined }
  // a worker that stops while idle leaves the pool (a search's own listeners see what happens during it)
  worker.on("error", () => drop(thread))
  worker.once("exit", () => drop(thread))
  return thread
}

/** Takes `thread` out of the idle pool, if it is there. */
const drop = (thread: Thread): void => {
  const at = idle.indexOf(thread)
  if (at !== -1) idle.splice(at, 1)
  if (thread.timer !== undefined) clearTimeout(thread.timer)
  thread.timer = undefined
}

/** Keeps an idle worker for the next search (ended after `IDLE_WORKER_MS`, or if it stops meanwhile). */
const keep = (thread: Thread): void => {
  thread.worker.unref()
  thread.port.unref()
  thread.timer = setTimeout(() => {
    drop(thread)
    void terminate(thread)
  }, IDLE_WORKER_MS)
  thread.timer.unref()
  idle.push(thread)
  // at most as many kept as one search starts
  for (let oldest = idle[0]; oldest !== undefined && idle.length > SEARCH_MAX_WORKERS; oldest = idle[0]) {
    drop(oldest)
    void terminate(oldest)
  }
}

/** Idle workers a search can have at once (without the cost of starting one). */
export const idleWorkers = (): number => idle.length

/**
 * Starts `count` workers (idle ones first) for a search whose first test is `prefilter`, each
 * reading at most `blockBytes` of a file. When the scope closes, each is kept for the next
 * search if it answered every job, else terminated (and waited for).
 */
export const startSearchWorkers = (
  count: number,
  prefilter: Prefilter,
  blockBytes: number
): Effect.Effect<SearchWorkers, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => {
        const running: Array<Running> = []
        const answered: Array<Answered> = []
        const errors: Array<Error> = []
        let wake: (() => void) | undefined
        const notify = () => {
          const resume = wake
          wake = undefined
          resume?.()
        }
        const take = (from: Running, message: unknown) => {
          if (!isWorkerAnswer(message) || !from.jobs.delete(message.id)) return
          answered.push({ id: message.id, answer: message })
          notify()
        }
        /** A worker has stopped: what it answered is taken, the rest of its jobs come back unanswered. */
        const stop = (from: Running) => {
          from.alive = false
          // answers already sent are still delivered first
          // (its emptied loop survives searchWorkerStops.test: for an answer to wait in the port when the exit is seen,
          // the exit event must come before the port's message event, and a test could only wait and hope for that order)
          for (let m = receiveMessageOnPort(from.thread.port); m !== undefined; m = receiveMessageOnPort(from.thread.port)) {
            take(from, m.message)
          }
          for (const id of from.jobs) answered.push({ id, answer: undefined })
          from.jobs.clear()
          notify()
        }
        const setup: WorkerSetup = { setup: true, prefilter, blockBytes }
        for (let i = 0; i < count; i++) {
          const thread = takeThread()
          const self: Running = {
            thread,
            jobs: new Set(),
            alive: true,
            onMessage: (message) => take(self, message),
            // an uncaught error ends the worker; its jobs are taken back only once it has stopped ("exit")
            onError: (error) => {
              self.alive = false
              errors.push(error)
            },
            onExit: () => stop(self)
          }
          thread.port.on("message", self.onMessage)
          thread.worker.on("error", self.onError)
          thread.worker.once("exit", self.onExit)
          thread.port.postMessage(setup)
          running.push(self)
        }
        let nextId = 0
        /** The live worker with the fewest jobs, if it has room. */
        const freest = (): Running | undefined => {
          let chosen: Running | undefined
          for (const candidate of running) {
            if (candidate.alive && (chosen === undefined || candidate.jobs.size < chosen.jobs.size)) chosen = candidate
          }
          return chosen !== undefined && chosen.jobs.size < JOBS_PER_WORKER ? chosen : undefined
        }
        const workers: SearchWorkers = {
          room: () => freest() !== undefined,
          submit: (prefix, names) => {
            const chosen = freest()
            if (chosen === undefined) return undefined
            const job: WorkerJob = { id: nextId++, prefix, names: `${names.join("\0")}\0` }
            chosen.jobs.add(job.id)
            chosen.thread.port.postMessage(job)
            return job.id
          },
          poll: () => {
            for (const each of running) {
              if (!each.alive) continue
              for (let m = receiveMessageOnPort(each.thread.port); m !== undefined; m = receiveMessageOnPort(each.thread.port)) {
                take(each, m.message)
              }
            }
            return answered.splice(0)
          },
          outstanding: () => answered.length + running.reduce((n, each) => n + each.jobs.size, 0),
          errors: () => errors,
          wait: Effect.callback<void>((resume) => {
            if (answered.length > 0 || running.every((each) => each.jobs.size === 0)) return resume(Effect.void)
            wake = () => resume(Effect.void)
            return Effect.sync(() => {
              wake = undefined
            })
          })
        }
        return { running, workers }
      }),
      ({ running }) =>
        Effect.forEach(running, (each) =>
          Effect.promise(async () => {
            const { port, worker } = each.thread
            port.off("message", each.onMessage)
            worker.off("error", each.onError)
            worker.off("exit", each.onExit)
            // kept only when it holds no job of this search (and stopped for no reason)
            if (each.alive && each.jobs.size === 0) keep(each.thread)
            else await terminate(each.thread)
          }), { concurrency: "unbounded", discard: true })
    ),
    ({ workers }) => workers
  )
