/**
 * The tests of `json.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { jsonWorkspace } from "./jsonHarness.js"

const { run } = jsonWorkspace()

describe("query_json", () => {

  it.effect("hostile input: deep nesting is refused before any recursion; a huge string is linear", () =>
    Effect.gen(function*() {
      const deep = "[".repeat(1_000_000)
      const r = yield* run("query_json", { json: deep, pointer: "" })
      expect(r.error).toBe("the JSON is nested deeper than 256 levels")
      const long = JSON.stringify({ text: "x".repeat(8 * 1024 * 1024) })
      const started = performance.now()
      const big = yield* run("query_json", { json: long, pointer: "/text" })
      expect(String(big.output)).toContain("... (cut after")
      expect(performance.now() - started).toBeLessThan(5000)
      const ctrl = yield* run("query_json", { json: "{\"a\":\"\u0001\"}", pointer: "" })
      expect(ctrl.error).toContain("line 1, column 7: expected a closing quote (a control character must be escaped), found U+0001")
    }))
})
