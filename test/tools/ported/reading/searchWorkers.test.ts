/**
 * The workers of one search, through their own interface (`startSearchWorkers`): how many jobs
 * they take and which worker gets one, `wait` and `poll`, and what each file's answer holds.
 * The search tests see only the lines found, which come out the same whoever searched a file.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { compileMatcher } from "../../../../src/tools/ported/reading/searchMatch.js"
import { AGAIN, FOUND, NONE } from "../../../../src/tools/ported/reading/searchWorkerSource.js"
import {
  type Answered,
  JOBS_PER_WORKER,
  type SearchWorkers,
  startSearchWorkers
} from "../../../../src/tools/ported/reading/searchWorkers.js"
import { childOf } from "../../../../src/tools/shared/safeFsNode.js"
import { FIRST_BLOCK_BYTES } from "../../../../src/tools/shared/safeFsRead.js"
import { closeSync, openDirectorySync } from "../../../../src/tools/shared/safeFsSync.js"
import { makeWorkspace } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>
let dir: { readonly fd: number; readonly path: string }
const names = ["a.txt", "b.txt", "c.txt", "big.txt"]

beforeAll(() => {
  fixture = makeWorkspace("search-workers-")
  fixture.write("d/a.txt", "one alpha\n")
  fixture.write("d/b.txt", "no match here\n")
  fixture.write("d/c.txt", "x\ny alpha z\n")
  // over the block a worker reads: left to the main thread
  fixture.write("d/big.txt", `alpha\n${"z".repeat(FIRST_BLOCK_BYTES)}\n`)
  dir = openDirectorySync(Fs.realpathSync(Path.join(fixture.ws, "d")))
})
afterAll(() => {
  closeSync(dir.fd, dir.path)
  fixture.remove()
})

const prefilter = () => {
  const matcher = compileMatcher("alpha", { regex: false, caseSensitive: true })
  if (Result.isFailure(matcher)) throw new Error(matcher.failure)
  return matcher.success.prefilter
}

const prefix = () => childOf(dir.fd, dir.path, "")

/** Waits for and takes answers until `count` have come. */
const collect = (workers: SearchWorkers, count: number) =>
  Effect.gen(function*() {
    const answers: Array<Answered> = []
    while (answers.length < count) {
      yield* workers.wait
      answers.push(...workers.poll())
    }
    return answers
  })

const waitAtOnce = (workers: SearchWorkers) =>
  Effect.timeoutOrElse(workers.wait, { duration: "5 seconds", orElse: () => Effect.fail(new Error("wait did not return")) })

// live clock: real search worker threads; their timers are Node's (searchWorkers.ts)
describe.skipIf(process.platform !== "linux")("startSearchWorkers", () => {
  it.live("takes at most three jobs a worker, spread over the workers, and answers each once", () =>
    Effect.scoped(Effect.gen(function*() {
      const workers = yield* startSearchWorkers(2, prefilter(), FIRST_BLOCK_BYTES)
      // nothing out: wait returns at once
      yield* waitAtOnce(workers)
      expect(workers.room()).toBe(true)
      const ids: Array<number> = []
      for (let id = workers.submit(prefix(), names); id !== undefined; id = workers.submit(prefix(), names)) ids.push(id)
      expect(JOBS_PER_WORKER).toBe(3)
      expect(ids).toEqual([0, 1, 2, 3, 4, 5])
      expect(workers.room()).toBe(false)
      expect(workers.outstanding()).toBe(6)

      const answers = yield* collect(workers, 6)
      expect(answers.map((a) => a.id).sort()).toEqual(ids)
      expect(workers.outstanding()).toBe(0)
      expect(workers.room()).toBe(true)
      expect(workers.errors()).toEqual([])
      for (const { answer } of answers) {
        if (answer === undefined) throw new Error("a job came back unanswered")
        expect([...answer.codes]).toEqual([FOUND, NONE, FOUND, AGAIN])
        // the found files' bytes, one after the other
        expect(Buffer.from(answer.data).toString()).toBe("one alpha\nx\ny alpha z\n")
        expect([...answer.ends]).toEqual([10, 22])
      }
      yield* waitAtOnce(workers)
    })), { timeout: 30_000 })

  it.live("wait returns once an answer has come, not while the only job is out", () =>
    Effect.scoped(Effect.gen(function*() {
      const workers = yield* startSearchWorkers(2, prefilter(), FIRST_BLOCK_BYTES)
      for (let round = 0; round < 20; round++) {
        expect(workers.submit(prefix(), names)).toBeDefined()
        // the other worker has no job: that is no reason to return
        yield* workers.wait
        const answers = workers.poll()
        expect(answers.length, `round ${round}`).toBe(1)
        expect(workers.outstanding()).toBe(0)
      }
    })), { timeout: 30_000 })

  it.live("a worker with all its jobs out leaves room on the other; a full worker gets none", () =>
    Effect.scoped(Effect.gen(function*() {
      const workers = yield* startSearchWorkers(1, prefilter(), FIRST_BLOCK_BYTES)
      const ids = [workers.submit(prefix(), names), workers.submit(prefix(), names), workers.submit(prefix(), names)]
      expect(ids).toEqual([0, 1, 2])
      expect(workers.room()).toBe(false)
      expect(workers.submit(prefix(), names)).toBeUndefined()
      yield* collect(workers, 3)
      expect(workers.room()).toBe(true)
    })), { timeout: 30_000 })
})
