/**
 * Issue 47 item 6: apply_diff and replace_in_file never block the event loop for more than
 * 100 ms, and refuse input past their limits with a clear error that leaves the file as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ManagedRuntime } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { AgentMode } from "../../../../src/index.js"
import type { ExecuteOptions } from "../../../../src/index.js"
import { REPLACE_MAX_RESULT_CHARS } from "../../../../src/tools/ported/editing/replaceInFile.js"
import { MAX_BLOCK_MS, measureBlocking } from "../../../helpers/loopDelay.js"
import { call, fingerprint, makeWorkspace, systemFor, text } from "./harness.js"

const fixture = makeWorkspace("edit-freeze-")
const at = (rel: string) => Path.join(fixture.ws, rel)
// one system for all calls, built (and its modules loaded) before any measurement
const runtime = ManagedRuntime.make(systemFor(fixture.ws))

beforeAll(async () => {
  Fs.writeFileSync(at("src/warm.txt"), "a\n")
  await runtime.runPromise(call("apply_diff", { filepath: "src/warm.txt", diff: "@@ -1,1 +1,1 @@\n-a\n+b\n" }))
  await runtime.runPromise(call("replace_in_file", { filepath: "src/warm.txt", old_text: "b", new_text: "c" }))
}, 20_000)

afterAll(async () => {
  await runtime.dispose()
  fixture.remove()
})

/** One call through the executor, with the longest event-loop block while it ran. */
const measured = (name: string, args: Record<string, unknown>, options: ExecuteOptions = { confirm: true }) =>
  measureBlocking(() => runtime.runPromise(call(name, args, options)))

describe("apply_diff: a hunk header far outside the file", () => {
  for (const line of ["300000000", "99999999999"]) {
    for (const [where, options] of [["act", { confirm: true }], ["plan", { mode: AgentMode.Plan, confirm: true }]] as const) {
      it(`@@ -${line} is refused, naming the hunk, without blocking (${where} mode)`, async () => {
        const rel = `plans/far-${line}-${where}.txt`
        Fs.writeFileSync(at(rel), "one\ntwo\nthree\n")
        const before = fingerprint(at(rel))
        const { maxBlockMs, value } = await measured(
          "apply_diff",
          { filepath: rel, diff: `@@ -${line},1 +${line},1 @@\n-two\n+TWO\n` },
          options
        )
        expect(value.success).toBe(false)
        expect(value.error).toBe(
          `hunk 1 of 1 (@@ -${line},1 +${line},1 @@) lies outside ${rel}, which has 3 lines (3 after the diff); ` +
            "nothing was changed (read the file again and make the diff against its current text)"
        )
        expect(fingerprint(at(rel))).toEqual(before)
        expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
      }, 20_000)
    }
  }
})

describe("apply_diff: a big file", () => {
  it("a valid diff on a 50,000-line file, its hunk stated far from its place, is applied without blocking", async () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `line ${i} of a long file with some text on it`)
    Fs.writeFileSync(at("src/big.txt"), `${lines.join("\n")}\n`)
    // stated at line 1, found near the end: applyPatch searches the whole file for it
    const diff = `@@ -1,3 +1,3 @@\n ${lines[49_990]}\n-${lines[49_991]}\n+changed\n ${lines[49_992]}\n`
    const { maxBlockMs, value } = await measured("apply_diff", { filepath: "src/big.txt", diff })
    expect(value.output).toBe("Applied 1 hunk to src/big.txt (+1 -1 lines)")
    const after = text(at("src/big.txt")).split("\n")
    expect(after[49_991]).toBe("changed")
    expect(after).toHaveLength(50_001)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 20_000)
})

describe("replace_in_file: a result past the limit", () => {
  it("1M one-character occurrences replaced by 600 characters each is refused before it is built", async () => {
    const rel = "src/many.txt"
    Fs.writeFileSync(at(rel), "a".repeat(1024 * 1024))
    const before = fingerprint(at(rel))
    const { maxBlockMs, value } = await measured("replace_in_file", {
      filepath: rel,
      old_text: "a",
      new_text: "b".repeat(600),
      count: 1024 * 1024
    })
    expect(value.success).toBe(false)
    expect(value.error).toBe(
      `replacing 1048576 occurrences would make ${rel} ${1024 * 1024 * 600} characters long, past the limit of ` +
        `${REPLACE_MAX_RESULT_CHARS} characters for an edited file; nothing was changed ` +
        "(replace fewer occurrences, or write the file with write_file)"
    )
    expect(fingerprint(at(rel))).toEqual(before)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 20_000)
})
