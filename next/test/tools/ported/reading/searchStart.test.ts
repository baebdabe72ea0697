/**
 * When `searchTree` starts its worker threads: once the search has met `minFiles` files (a
 * smaller search never pays for them), and at once when idle workers of an earlier search are
 * waiting (they cost nothing to start).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { IDLE_WORKER_MS, idleWorkers } from "../../../../src/tools/ported/reading/searchWorkers.js"
import { makeWorkspace, searchWorkspace } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

// Where test files share one module graph (the mutation run's vitest config), an earlier file's
// search may have left workers idle: the counts below start from none.
beforeAll(async () => {
  for (const until = Date.now() + 3 * IDLE_WORKER_MS; idleWorkers() > 0 && Date.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}, 4 * IDLE_WORKER_MS)

beforeAll(() => {
  fixture = makeWorkspace("search-start-")
  // the walk lists `b` (and asks to resolve its link) after it has searched `a`; b's link leads
  // to a file searched already, so b has no file to search (nor to start the workers at)
  for (let f = 0; f < 10; f++) fixture.write(`a/f${f}.txt`, `hit ${f}\n`)
  Fs.mkdirSync(`${fixture.ws}/b`)
  Fs.symlinkSync("../a/f0.txt", `${fixture.ws}/b/link.txt`)
})
afterAll(() => fixture.remove())

/** A search with two workers once `minFiles` files were met; `probe` runs when the walk resolves b's link. */
const search = (minFiles: number, probe: () => void = () => {}) =>
  searchWorkspace(fixture.ws, "hit", { workers: 2, minFiles, onLink: probe })

// live clock: real search worker threads; their idle time is a Node timer (IDLE_WORKER_MS)
describe("searchTree's workers", () => {
  it.live("start once minFiles files were met, not before; idle ones are taken at once", () =>
    Effect.gen(function*() {
      expect(idleWorkers()).toBe(0)
      // one more than the tree's 10 files
      const small = yield* search(11)
      expect(small.lines).toHaveLength(10)
      expect(idleWorkers()).toBe(0)
      // exactly the 10 files: started at a, then kept idle
      const started = yield* search(10)
      expect(started.lines).toHaveLength(10)
      expect(idleWorkers()).toBe(2)
      // with two idle workers waiting, a search of fewer files than its minFiles takes them at a
      let idleAtB: number | undefined
      const reused = yield* search(1000, () => {
        idleAtB = idleWorkers()
      })
      expect(reused.lines).toHaveLength(10)
      expect(idleAtB).toBe(0)
      expect(idleWorkers()).toBe(2)
    }))
})
