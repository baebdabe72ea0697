/**
 * The tests of `convertFormat.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as YAML from "yaml"
import { convertInWorker } from "../../../../src/tools/ported/data/convertWorker.js"
import { convertJob } from "../../../../src/tools/ported/data/formats.js"
import { convertFormatWorkspace, PEOPLE } from "./convertFormatHarness.js"

const { convert } = convertFormatWorkspace()

describe("convert_format", () => {
  it.effect("JSON to YAML and CSV (and JSON again)", () =>
    Effect.gen(function*() {
      const yaml = yield* convert("people.json", "yaml")
      expect(YAML.parse(String(yaml.output))).toEqual(PEOPLE)
      expect((yield* convert("people.json", "csv")).output).toBe(
        [
          "name,age,tags,note",
          "Alice,30,\"[\"\"a\"\",\"\"b\"\"]\",",
          "\"Bob, Jr.\",,,\"said \"\"hi\"\"\"",
          ""
        ].join("\n")
      )
      expect((yield* convert("people.json", "json")).output).toBe(JSON.stringify(PEOPLE, null, 2))
    }))

  it.effect("CSV (CRLF, quoted) to JSON objects by header, or arrays without one; and to YAML", () =>
    Effect.gen(function*() {
      expect(JSON.parse(String((yield* convert("table.csv", "json")).output))).toEqual([
        { id: "1", label: "one, uno" },
        { id: "2", label: "two" }
      ])
      expect(JSON.parse(String((yield* convert("nohead.csv", "json")).output))).toEqual([["1", "2"], ["3", "4"]])
      expect(YAML.parse(String((yield* convert("table.csv", "yaml")).output))).toEqual([
        { id: "1", label: "one, uno" },
        { id: "2", label: "two" }
      ])
    }))

  it.effect("syntax errors name the place; a duplicate YAML key keeps its last value", () =>
    Effect.gen(function*() {
      expect((yield* convert("bad.json", "yaml")).error).toContain("\"bad.json\": not valid JSON: line 1, column 7")
      const yaml = yield* convert("bad.yaml", "json")
      expect(yaml.errorCode).toBe("TOOL_ERROR")
      expect(yaml.error).toMatch(/^"bad\.yaml": not valid YAML: .*line \d+, column \d+/s)
      // duplicate keys: the last wins, as with JSON.parse (the duplicate check is quadratic in the yaml package)
      expect(JSON.parse(String((yield* convert("dup.yaml", "json")).output))).toEqual({ a: 2 })
      expect((yield* convert("empty.json", "yaml")).error).toContain("found the end of the text")
    }))

  it.effect("hostile YAML: deep nesting refused before parsing, alias bombs refused, __proto__ is data", () =>
    Effect.gen(function*() {
      const started = performance.now()
      expect((yield* convert("deep-block.yaml", "json")).error).toBe(
        "\"deep-block.yaml\": the YAML is nested too deeply: a line is indented or nested more than 512 columns deep"
      )
      expect((yield* convert("deep-flow.yaml", "json")).error).toBe(
        "\"deep-flow.yaml\": the YAML is nested too deeply: brackets are nested more than 256 deep"
      )
      expect((yield* convert("quoted-flow.yaml", "json")).error).toContain("brackets are nested more than 256 deep")
      expect(performance.now() - started).toBeLessThan(3000)
      const laughs = yield* convert("laughs.yaml", "json")
      expect(laughs.errorCode).toBe("TOOL_ERROR")
      expect(laughs.error).toBe("\"laughs.yaml\": not valid YAML: Excessive alias count indicates a resource exhaustion attack")
      expect((yield* convert("self.yaml", "json")).error).toBe(
        "\"self.yaml\": the document is nested more than 256 deep (or an alias refers to its own anchor)"
      )
      expect(JSON.parse(String((yield* convert("proto.yaml", "json")).output))).toEqual(JSON.parse("{\"__proto__\":{\"polluted\":true}}"))
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    }))

  // live clock: real time is the point, the host's 10 ms timer firing while the worker parses (the
  // deadline alone is driven on the TestClock in dataEdges.test.ts and scriptWorker.test.ts)
  it.live("the YAML parser runs in the conversion's worker with a deadline: a quadratic input is stopped, the host keeps running", () =>
    Effect.gen(function*() {
      // anchors and aliases: quadratic in the yaml package (900 KB took 106 s here)
      const anchors = Array.from({ length: 20_000 }, (_, i) => `a${i}: &x${i} v`).join("\n")
      const aliases = Array.from({ length: 20_000 }, (_, i) => `b${i}: *x${i % 1000}`).join("\n")
      let ticks = 0
      const timer = setInterval(() => ticks++, 10)
      const failed = yield* Effect.flip(convertInWorker(convertJob("yaml", "json", `${anchors}\n${aliases}`, ",", 100), "300 millis"))
      clearInterval(timer)
      expect(failed).toBe("the conversion did not finish within 300ms")
      expect(ticks).toBeGreaterThan(10)
      const json = JSON.stringify({ a: [1, 2], b: { c: "d" } }, null, 2)
      expect(yield* convertInWorker(convertJob("yaml", "json", "a: [1, 2]\nb: {c: d}\n", ",", 100))).toEqual({
        ok: true,
        head: json,
        length: json.length
      })
    }))
})
