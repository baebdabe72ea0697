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
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads"
import { modulePath } from "../../shared/scriptWorker.js"
import { READ_FLAGS } from "../../shared/safeFsNode.js"
import type { Prefilter } from "./searchMatch.js"
import { isWorkerAnswer, WORKER_SOURCE, type WorkerAnswer, type WorkerJob, type WorkerStart } from "./searchWorkerSource.js"

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

interface Running {
  readonly worker: Worker
  readonly port: MessagePort
  /** Ids of the jobs it holds. */
  readonly jobs: Set<number>
  alive: boolean
}

/**
 * Starts `count` workers for a search whose first test is `prefilter`, each reading at most
 * `blockBytes` of a file. They are terminated when the scope closes.
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
          for (let m = receiveMessageOnPort(from.port); m !== undefined; m = receiveMessageOnPort(from.port)) take(from, m.message)
          for (const id of from.jobs) answered.push({ id, answer: undefined })
          from.jobs.clear()
          notify()
        }
        for (let i = 0; i < count; i++) {
          const { port1, port2 } = new MessageChannel()
          const start: WorkerStart = { port: port2, prefilter, re2Module: modulePath("re2js"), openFlags: READ_FLAGS, blockBytes }
          const worker = new Worker(WORKER_SOURCE, {
            eval: true,
            // not the host's loaders or inspector flags; nothing it prints reaches the host's output
            execArgv: [],
            stdout: true,
            stderr: true,
            workerData: start,
            transferList: [port2],
            resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB }
          })
          const self: Running = { worker, port: port1, jobs: new Set(), alive: true }
          port1.on("message", (message: unknown) => take(self, message))
          // an uncaught error ends the worker; its jobs are taken back only once it has stopped ("exit")
          worker.on("error", (error) => {
            self.alive = false
            errors.push(error)
          })
          worker.once("exit", () => stop(self))
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
            chosen.port.postMessage(job)
            return job.id
          },
          poll: () => {
            for (const each of running) {
              if (!each.alive) continue
              for (let m = receiveMessageOnPort(each.port); m !== undefined; m = receiveMessageOnPort(each.port)) take(each, m.message)
            }
            return answered.splice(0)
          },
          outstanding: () => answered.length + running.reduce((n, each) => n + each.jobs.size, 0),
          errors: () => errors,
          wait: Effect.async<void>((resume) => {
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
        Effect.forEach(running, ({ port, worker }) =>
          Effect.promise(async () => {
            port.close()
            await worker.terminate()
          }), { concurrency: "unbounded", discard: true })
    ),
    ({ workers }) => workers
  )
