import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option, Result } from "effect"
import * as Path from "node:path"
import { parsePointer, selectPointer } from "../../../../src/tools/ported/data/jsonPointer.js"
import { firstSyntaxError, parseJsonLocated } from "../../../../src/tools/shared/jsonSyntax.js"
import { OUTPUT_MAX_CHARS } from "../../../../src/tools/shared/outputCap.js"
import { traversalOf } from "./harness.js"
import { DOC, jsonWorkspace } from "./jsonHarness.js"

const { dirs, run } = jsonWorkspace()
let base: string
beforeAll(() => {
  base = dirs.base
})

describe("read_json", () => {
  it.effect("pretty-prints a file, or the part a pointer selects", () =>
    Effect.gen(function*() {
      const all = yield* run("read_json", { filepath: "doc.json" })
      expect(all.success).toBe(true)
      expect(all.output).toBe(JSON.stringify(DOC, null, 2))
      expect((yield* run("read_json", { filepath: "doc.json", pointer: "/items/0/tags/0" })).output).toBe("\"x\"")
      expect((yield* run("read_json", { filepath: "doc.json", pointer: "/a~1b" })).output).toBe("1")
      expect((yield* run("read_json", { filepath: "doc.json", pointer: "/m~0n" })).output).toBe("2")
      expect((yield* run("read_json", { filepath: "doc.json", pointer: "/" })).output).toBe("\"empty key\"")
      expect((yield* run("read_json", { filepath: "doc.json", pointer: "" })).output).toBe(JSON.stringify(DOC, null, 2))
      expect((yield* run("read_json", { filepath: "doc.json", pointer: "#/nested/deep" })).output).toBe("null")
      expect((yield* run("read_json", { filepath: "doc.json", pointer: "/items/1" })).output).toBe("{\n  \"id\": 2\n}")
    }))

  it.effect("CRLF, a BOM and unicode are read as they are", () =>
    Effect.gen(function*() {
      expect((yield* run("read_json", { filepath: "crlf.json", pointer: "/b/0" })).output).toBe("true")
      const u = yield* run("read_json", { filepath: "unicode.json" })
      expect(u.output).toBe(JSON.stringify({ "städte": ["Zürich", "東京", "😀"] }, null, 2))
    }))

  it.effect("an invalid pointer says where the walk stopped and what is there", () =>
    Effect.gen(function*() {
      const cases: Array<[string, string]> = [
        ["/nope", "no value at \"/nope\": the object at the document root has no key \"nope\" (its keys: \"name\", \"a/b\", \"m~n\", \"items\", \"\", \"nested\")"],
        ["/items/5", "no value at \"/items/5\": the array at \"/items\" has 2 items (indices 0 to 1)"],
        ["/items/-", "no value at \"/items/-\": \"-\" at \"/items\" names the position after the last item, which has no value"],
        ["/items/01", "no value at \"/items/01\": \"01\" is not an index of the array at \"/items\" (use 0 to 1)"],
        ["/name/x", "no value at \"/name/x\": the value at \"/name\" is a string, not an object or array"],
        ["/nested/deep/x", "no value at \"/nested/deep/x\": the value at \"/nested/deep\" is null, not an object or array"],
        ["items", "the pointer \"items\" must be empty (the whole document) or start with \"/\", e.g. \"/items/0/name\""],
        ["/a~2", "the pointer \"/a~2\" has a \"~\" not followed by 0 or 1 (write \"~0\" for \"~\" and \"~1\" for \"/\")"],
        ["/constructor", "no value at \"/constructor\": the object at the document root has no key \"constructor\" (its keys: \"name\", \"a/b\", \"m~n\", \"items\", \"\", \"nested\")"]
      ]
      for (const [pointer, message] of cases) {
        const r = yield* run("read_json", { filepath: "doc.json", pointer })
        expect(r.errorCode, pointer).toBe("TOOL_ERROR")
        expect(r.error, pointer).toBe(message)
      }
    }))

  it.effect("own keys only: __proto__ and constructor are data, never the prototype", () =>
    Effect.gen(function*() {
      expect((yield* run("read_json", { filepath: "proto.json", pointer: "/__proto__/polluted" })).output).toBe("true")
      expect((yield* run("read_json", { filepath: "proto.json", pointer: "/constructor" })).output).toBe("1")
      expect((yield* run("read_json", { filepath: "doc.json", pointer: "/name/length" })).errorCode).toBe("TOOL_ERROR")
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    }))

  it.effect("a syntax error names line and column and shows the line", () =>
    Effect.gen(function*() {
      const r = yield* run("read_json", { filepath: "bad.json" })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe(
        "not valid JSON: line 3, column 8: expected a value (an object, array, string, number, true, false or null), found 'x'\n" +
          "    \"b\": x\n" +
          "         ^"
      )
      expect((yield* run("read_json", { filepath: "trailing.json" })).error).toContain("line 1, column 7: expected a value")
      expect((yield* run("read_json", { filepath: "empty.json" })).error).toContain(
        "line 1, column 1: expected a value (an object, array, string, number, true, false or null), found the end of the text"
      )
    }))

  it.effect("a missing file, a directory, a binary file, a file nested too deep: clear errors", () =>
    Effect.gen(function*() {
      expect((yield* run("read_json", { filepath: "missing.json" })).error).toBe("\"missing.json\" does not exist")
      expect((yield* run("read_json", { filepath: "dir.json" })).error).toBe("\"dir.json\" is a directory, not a file")
      expect((yield* run("read_json", { filepath: "bin.json" })).error).toBe("\"bin.json\" is a binary file (4 bytes), not UTF-8 text")
      expect((yield* run("read_json", { filepath: "deep.json" })).error).toBe("the JSON is nested deeper than 256 levels")
    }))

  it.effect("a path leading out of the workspace is a PathTraversalError defect", () =>
    Effect.gen(function*() {
      for (const filepath of ["../outside.json", "link-out.json", Path.join(base, "outside.json")]) {
        const exit = yield* Effect.exit(run("read_json", { filepath }))
        expect(Option.isSome(traversalOf(exit)), filepath).toBe(true)
      }
    }))

  it.effect("a long answer is cut at a line and says how to get the rest", () =>
    Effect.gen(function*() {
      const r = yield* run("read_json", { filepath: "big.json" })
      const text = String(r.output)
      expect(text.length).toBeLessThan(OUTPUT_MAX_CHARS + 200)
      expect(text).toMatch(/\n\.\.\. \(cut after \d+ of \d+ characters; pass a pointer to select a smaller part, e.g. "\/items\/0"\)$/)
      expect((yield* run("read_json", { filepath: "big.json", pointer: "/19999/i" })).output).toBe("19999")
    }))
})

describe("query_json", () => {
  it.effect("the same pointer query over a string", () =>
    Effect.gen(function*() {
      const json = JSON.stringify(DOC)
      expect((yield* run("query_json", { json, pointer: "/items/0/id" })).output).toBe("1")
      expect((yield* run("query_json", { json, pointer: "/items" })).output).toBe(JSON.stringify(DOC.items, null, 2))
      expect((yield* run("query_json", { json, pointer: "/x" })).error).toContain("has no key \"x\"")
      expect((yield* run("query_json", { json: "{\"a\": [1, 2", pointer: "/a" })).error).toBe(
        "not valid JSON: line 1, column 12: expected ',' or ']' after an array item, found the end of the text\n" +
          "  {\"a\": [1, 2\n" +
          "             ^"
      )
      expect((yield* run("query_json", { json, pointer: undefined })).errorCode).toBe("INVALID_ARGUMENTS")
    }))
})

describe("the JSON syntax scan", () => {
  it("agrees with JSON.parse on valid and invalid texts", () => {
    const samples = [
      "{\"a\":1,}", "", "[1,2", "\"abc", "{\"a\":1} x", "nul", "{\"a\" 1}", "[]", "{}", "[[],[{}]]", "-0.5e+10", "01", "1.",
      "-", ".5", "\"\\x\"", "\"\\u12\"", "[1,]", "[,1]", "{,}", "{\"a\":1,\"b\"}", " true ", "tru", "\"\ud83d\ude00\"", "[1]]",
      "\uFEFF{}", "[\n\t1,\r\n2\n]", "{\"a\":{\"b\":[1, 2 3]}}", "1e5", "1E+2", "-", "--1", "\"\\/\""
    ]
    for (const s of samples) {
      let valid = true
      try {
        JSON.parse(s)
      } catch {
        valid = false
      }
      expect(firstSyntaxError(s) === undefined, JSON.stringify(s)).toBe(valid)
    }
  })

  it("columns count characters, not UTF-16 units; a long line is shown around the problem only", () => {
    const r = parseJsonLocated("[\"😀😀\", x]")
    // [ " 😀 😀 " , space x: the x is the 8th character (the 10th UTF-16 unit)
    expect(Result.isFailure(r) && r.failure.column).toBe(8)
    const wide = parseJsonLocated(`[${"1,".repeat(1000)} x]`)
    expect(Result.isFailure(wide) && wide.failure.message.split("\n")[1]?.length).toBeLessThan(100)
  })

  it("pointers: where a walk stops and why, in words", () => {
    const why = (document: unknown, pointer: string) =>
      Result.match(selectPointer(document, pointer), { onFailure: (e) => e.message, onSuccess: (v) => `value ${JSON.stringify(v)}` })
    const doc = { a: [10, 20, 30], e: [], o: {}, n: null, s: "str", k: { x: 1, y: 2 } }
    expect(why(doc, "/a/-")).toBe("no value at \"/a/-\": \"-\" at \"/a\" names the position after the last item, which has no value")
    expect(why(doc, "/a/01")).toBe("no value at \"/a/01\": \"01\" is not an index of the array at \"/a\" (use 0 to 2)")
    expect(why(doc, "/a/1.0")).toBe("no value at \"/a/1.0\": \"1.0\" is not an index of the array at \"/a\" (use 0 to 2)")
    expect(why(doc, "/a/2")).toBe("value 30")
    expect(why(doc, "/a/3")).toBe("no value at \"/a/3\": the array at \"/a\" has 3 items (indices 0 to 2)")
    expect(why(doc, "/e/0")).toBe("no value at \"/e/0\": the array at \"/e\" is empty")
    expect(why(doc, "/o/x")).toBe("no value at \"/o/x\": the object at \"/o\" is empty")
    expect(why(doc, "/k/z")).toBe("no value at \"/k/z\": the object at \"/k\" has no key \"z\" (its keys: \"x\", \"y\")")
    expect(why(doc, "/constructor")).toMatch(/^no value at "\/constructor": the object at the document root has no key "constructor"/)
    expect(why(doc, "/n/x")).toBe("no value at \"/n/x\": the value at \"/n\" is null, not an object or array")
    expect(why(doc, "/s/0")).toBe("no value at \"/s/0\": the value at \"/s\" is a string, not an object or array")
    expect(why(7, "/0")).toBe("no value at \"/0\": the value at the document root is a number, not an object or array")
    // at most 20 keys are listed, then how many more
    const wide = Object.fromEntries(Array.from({ length: 23 }, (_, i) => [`k${i}`, i]))
    expect(why(wide, "/zz")).toBe(
      `no value at "/zz": the object at the document root has no key "zz" (its keys: ${
        Array.from({ length: 20 }, (_, i) => `"k${i}"`).join(", ")
      }, and 3 more)`
    )
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]))
    expect(why(twenty, "/zz")).not.toContain("more")
    // a key longer than 120 characters is quoted cut
    expect(why({}, `/${"q".repeat(200)}`)).toBe(`no value at "/${"q".repeat(119)}": the object at the document root is empty`)
    expect(why({ a: {} }, `/a/${"q".repeat(200)}`)).toBe(`no value at "/a/${"q".repeat(117)}": the object at "/a" is empty`)
    expect(why({ k: { x: 1 } }, `/k/${"w".repeat(130)}`)).toContain(`has no key "${"w".repeat(120)}…" (its keys: "x")`)
    // exactly 120 is quoted whole
    expect(why({ k: { x: 1 } }, `/k/${"w".repeat(120)}`)).toContain(`has no key "${"w".repeat(120)}" (its keys: "x")`)
  })

  it("pointers: malformed ones, and escapes undone in the right order", () => {
    const problem = (pointer: string) => Result.match(parsePointer(pointer), { onFailure: (e) => e.message, onSuccess: (t) => `tokens ${JSON.stringify(t)}` })
    expect(problem("a/b")).toBe("the pointer \"a/b\" must be empty (the whole document) or start with \"/\", e.g. \"/items/0/name\"")
    expect(problem("#%E0%A4%A")).toBe("the pointer \"#%E0%A4%A\" has an invalid %-escape")
    for (const bad of ["/a~2", "/a~", "/~/x"]) {
      expect(problem(bad), bad).toBe(`the pointer ${JSON.stringify(bad)} has a "~" not followed by 0 or 1 (write "~0" for "~" and "~1" for "/")`)
    }
    // "~01" is "~1" (the ~0 is undone last), not "/"
    expect(problem("/~01")).toBe("tokens [\"~1\"]")
    expect(problem("#")).toBe("tokens []")
    expect(problem("/")).toBe("tokens [\"\"]")
    expect(problem("//x")).toBe("tokens [\"\",\"x\"]")
  })

  it("pointers: parsing and escapes", () => {
    expect(parsePointer("/a~1b/~0")).toEqual(Result.succeed(["a/b", "~"]))
    expect(parsePointer("#/a%20b")).toEqual(Result.succeed(["a b"]))
    expect(Result.isFailure(parsePointer("#%E0%A4%A"))).toBe(true)
    expect(selectPointer([[1, [2]]], "/0/1/0")).toEqual(Result.succeed(2))
  })
})
