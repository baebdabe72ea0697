/**
 * Issue 47 item 6: `diff_files` never blocks the event loop for more than 100 ms (8 diffs of
 * dissimilar files in one turn stalled a host for 31-42 s), and its timeout fires. The diff runs
 * in a worker thread that the call's end (answer, timeout, interruption) terminates.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, ManagedRuntime } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { DIFF_MAX_BYTES, DIFF_TIMEOUT_MS, diffFiles } from "../../../../src/tools/ported/reading/diffFiles.js"
import { MAX_BLOCK_MS, measureRepeatedBlocking } from "../../../helpers/loopDelay.js"
import { makeWorkspace, outputOf } from "./harness.js"

/** A tool timeout short enough to fire long before the diff's own limit. */
const SHORT_TIMEOUT_MS = 600

const fixture = makeWorkspace("diff-freeze-")
const systemOf = (tool: typeof diffFiles) =>
  ManagedRuntime.make(
    ToolSystem.layerNode({ builtins: false, tools: [tool], workspace: Workspace.layerFixed(fixture.ws) })
  )
// one system for all calls, built (and its modules loaded) before any measurement
const runtime = systemOf(diffFiles)
// the same tool with a short timeout: the executor's own deadline is what must fire
const hurried = systemOf({ ...diffFiles, timeoutMs: SHORT_TIMEOUT_MS })

const diff = (system: typeof runtime, args: Record<string, unknown>) =>
  system.runPromise(Effect.flatMap(ToolSystem, (tools) => tools.execute("diff_files", args)))

/** `count` lines of 40 pseudo-random hex digits (xorshift, so a failure can be replayed). */
const randomLines = (seed: number, count: number): string => {
  let x = seed
  const next = () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0).toString(16).padStart(8, "0")
  }
  const lines: Array<string> = []
  for (let i = 0; i < count; i++) lines.push(`${next()}${next()}${next()}${next()}${next()}\n`)
  return lines.join("")
}

/** Threads this process runs besides its own: each live worker holds a `MessagePort` resource. */
const workerPorts = () => process.getActiveResourcesInfo().filter((resource) => resource === "MessagePort").length

// about 3.3 MiB each, under DIFF_MAX_BYTES: read whole, then diffed (no line in common)
const LINES = 80_000

beforeAll(async () => {
  fixture.write("far-a.txt", randomLines(1, LINES))
  fixture.write("far-b.txt", randomLines(2, LINES))
  // over the size limit: refused before reading
  fixture.write("huge-a.txt", randomLines(3, 5_000_000 / 41 + 1))
  fixture.write("huge-b.txt", randomLines(4, 5_000_000 / 41 + 1))
  // two large files that differ in three lines
  const near = randomLines(5, LINES).split("\n")
  fixture.write("near-a.txt", near.join("\n"))
  near[10] = "changed"
  near[40_000] = "changed too"
  near[LINES - 1] = "last"
  fixture.write("near-b.txt", near.join("\n"))
  fixture.write("warm-a.txt", "one\ntwo\n")
  fixture.write("warm-b.txt", "one\n2\n")
  await diff(runtime, { file_a: "warm-a.txt", file_b: "warm-b.txt" })
  await diff(hurried, { file_a: "warm-a.txt", file_b: "warm-b.txt" })
}, 30_000)

afterAll(async () => {
  await runtime.dispose()
  await hurried.dispose()
  fixture.remove()
})

describe("diff_files: no call blocks the event loop", () => {
  it("the files are large and dissimilar: 8 calls at once each answer, without a block over 100 ms", async () => {
    expect(Fs.statSync(Path.join(fixture.ws, "far-a.txt")).size).toBeLessThan(DIFF_MAX_BYTES)
    const before = workerPorts()
    const pairs = [...Array.from({ length: 7 }, () => ["far-a.txt", "far-b.txt"]), ["huge-a.txt", "huge-b.txt"]]
    let ms = 0
    // repeatable (nothing is written): a wait for a core on a loaded machine does not repeat
    const { maxBlockMs, value } = await measureRepeatedBlocking(async () => {
      const started = Date.now()
      const results = await Promise.all(pairs.map(([file_a, file_b]) => diff(runtime, { file_a, file_b })))
      ms = Date.now() - started
      return results
    })
    for (const result of value.slice(0, 7)) {
      expect(result.error).toBe(
        `the files differ too much to diff within ${DIFF_TIMEOUT_MS / 1000} s; compare smaller parts (read_lines)`
      )
    }
    expect(value[7]?.error).toMatch(/^"huge-a\.txt" is \d+ bytes, over the 4194304-byte limit of a whole-file read$/)
    // a worker per core (DIFF_WORKERS) side by side, not one after the other (each diff is given 5 s)
    expect(ms).toBeLessThan(7 * DIFF_TIMEOUT_MS)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
    expect(workerPorts()).toBe(before)
  }, 240_000)

  it("large files that differ in three lines: the diff, without a block over 100 ms", async () => {
    const { maxBlockMs, value } = await measureRepeatedBlocking(() =>
      diff(runtime, { file_a: "near-a.txt", file_b: "near-b.txt", context_lines: 0 })
    )
    const out = outputOf(value).split("\n")
    expect(out.slice(0, 3)).toEqual(["--- near-a.txt", "+++ near-b.txt", "@@ -11,1 +11,1 @@"])
    expect(out.slice(4)).toEqual([
      "+changed",
      "@@ -40001,1 +40001,1 @@",
      expect.stringMatching(/^-[0-9a-f]{40}$/),
      "+changed too",
      "@@ -80000,1 +80000,1 @@",
      expect.stringMatching(/^-[0-9a-f]{40}$/),
      "+last"
    ])
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)

  it("the tool's timeout fires on time and leaves no worker running", async () => {
    const before = workerPorts()
    const { maxBlockMs, value } = await measureRepeatedBlocking(async () => {
      const started = Date.now()
      const result = await diff(hurried, { file_a: "far-a.txt", file_b: "far-b.txt" })
      return { result, ms: Date.now() - started }
    })
    expect(value.result.errorCode).toBe("TIMEOUT")
    expect(value.ms).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 50)
    expect(value.ms).toBeLessThan(SHORT_TIMEOUT_MS + 1000)
    expect(workerPorts()).toBe(before)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)
})
