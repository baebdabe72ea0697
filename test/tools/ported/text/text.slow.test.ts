/**
 * text_stats on a text of 30 Mi characters, through the executor: counted in one linear pass.
 * In the slow lane: building the text and counting it take about 0.6-0.7 s of CPU, the most of
 * any test of `text.test.ts`, where the rest of text_stats is tested.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { textTools } from "../../../../src/tools/ported/text/index.js"
import { underMutationTesting } from "../../../helpers/portedRunner.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner } from "../data/harness.js"

const ws = makeTempDirSync("ported-text-slow-")
const run = runner(textTools, () => ws)

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("text_stats", () => {
  it.effect.skipIf(underMutationTesting)("a 30 Mi-character text is counted in one linear pass", () =>
    Effect.gen(function*() {
      const text = "word ".repeat(6 * 1024 * 1024)
      const started = performance.now()
      const r = yield* run("text_stats", { text })
      expect(String(r.output)).toContain(`words: ${6 * 1024 * 1024}`)
      // a pass that is not linear would take hours over 30 Mi; the bound tells the two apart with room
      // for a loaded 2-core machine (the speed itself is not what this checks)
      expect(performance.now() - started).toBeLessThan(20_000)
    }))
})
