import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { findFiles } from "../../../../src/tools/ported/reading/findFiles.js"
import { call, makeWorkspace, outputOf, traversalOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("find-files-")
  const { write } = fixture
  write("README.md", "r")
  write(".hidden.md", "h")
  write("docs/guide.md", "g")
  write("docs/notes.txt", "n")
  write("docs/deep/er/api.md", "a")
  write("src/index.ts", "i")
  write("src/util.test.ts", "u")
  write("src/tests/unit.ts", "t")
  write(".git/info.md", "never")
  write("node_modules/pkg/readme.md", "never")
  write("unicode/résumé.md", "é")
  for (let i = 0; i < 12; i++) write(`many/f${String(i).padStart(2, "0")}.log`, "x")
})

afterAll(() => fixture.remove())

const find = (args: Record<string, unknown>) => call(fixture.ws, "find_files", args)

describe("find_files", () => {
  it.effect("finds names matching a glob at any depth, breadth first and sorted, hidden ones included", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* find({ name_pattern: "*.md" }))).toBe(
        [".hidden.md", "README.md", "docs/guide.md", "unicode/résumé.md", "docs/deep/er/api.md"].join("\n")
      )
      expect(outputOf(yield* find({ name_pattern: "*.md", directory: "docs" }))).toBe("docs/guide.md\ndocs/deep/er/api.md")
    }))

  it.effect("directories match too, shown with a slash; a glob with a slash matches the path below the directory", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* find({ name_pattern: "*test*" }))).toBe("src/tests/\nsrc/util.test.ts")
      expect(outputOf(yield* find({ name_pattern: "src/**/*.ts" }))).toBe("src/index.ts\nsrc/util.test.ts\nsrc/tests/unit.ts")
      expect(outputOf(yield* find({ name_pattern: "**/er/*.md" }))).toBe("docs/deep/er/api.md")
      expect(outputOf(yield* find({ name_pattern: "*.{ts,txt}", directory: "docs" }))).toBe("docs/notes.txt")
      expect(outputOf(yield* find({ name_pattern: "r?sum?.md" }))).toBe("unicode/résumé.md")
    }))

  it.effect("a name with a line break is quoted, so that it cannot pass for two paths", () =>
    Effect.gen(function*() {
      fixture.write("odd/line\nbreak.md", "x")
      expect(outputOf(yield* find({ name_pattern: "*.md", directory: "odd" }))).toBe("\"odd/line\\nbreak.md\"")
      const search = outputOf(yield* call(fixture.ws, "search_files", { pattern: "x", directory: "odd" }))
      expect(search).toBe("\"odd/line\\nbreak.md\":1: x")
    }))

  it.effect("max_results caps the list and says how to get the rest", () =>
    Effect.gen(function*() {
      const out = outputOf(yield* find({ name_pattern: "*.log", max_results: 5 })).split("\n")
      expect(out.slice(0, 5)).toEqual(["many/f00.log", "many/f01.log", "many/f02.log", "many/f03.log", "many/f04.log"])
      expect(out.slice(5)).toEqual([
        "(showing the first 5 paths; there are more: raise max_results (at most 5000), or narrow name_pattern or directory)"
      ])
      expect(outputOf(yield* find({ name_pattern: "*.log", max_results: 12 })).split("\n")).toHaveLength(12)
    }))

  it.effect("stops walking once max_results is passed: what lies further is not looked at", () =>
    Effect.gen(function*() {
      const small = makeWorkspace("find-files-stop-")
      try {
        small.write("a.md", "a")
        small.write("b.md", "b")
        // met only if the walk goes on into the subdirectory
        Fs.mkdirSync(Path.join(small.ws, "z"))
        Fs.symlinkSync(small.outside, Path.join(small.ws, "z", "out"))
        const linkNote = "(1 symbolic link not followed: it leads out of the workspace or to nothing)"
        const capped = outputOf(yield* call(small.ws, "find_files", { name_pattern: "*.md", max_results: 1 })).split("\n")
        expect(capped).toEqual([
          "a.md",
          "(showing the first 1 paths; there are more: raise max_results (at most 5000), or narrow name_pattern or directory)"
        ])
        const whole = outputOf(yield* call(small.ws, "find_files", { name_pattern: "*.md", max_results: 2 })).split("\n")
        expect(whole).toEqual(["a.md", "b.md", linkNote])
      } finally {
        small.remove()
      }
    }))

  it.effect("no match; a pattern climbing out is refused; an unsupported glob is a clear error", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* find({ name_pattern: "*.zip" }))).toBe("No files or directories named \"*.zip\" in the workspace.")
      for (const name_pattern of ["../*", "/etc/*", "a/../../*", "{../x,y}"]) {
        const r = yield* find({ name_pattern })
        expect(r.error, name_pattern).toBe(`the pattern "${name_pattern}" must be relative and must not contain ".."`)
      }
      // a literal ".." spelled with escapes matches nothing below the directory, and reads nothing above it
      expect(outputOf(yield* find({ name_pattern: ".\\./outside/*" }))).toBe(
        "No files or directories named \".\\./outside/*\" in the workspace."
      )
      expect((yield* find({ name_pattern: "!(x)" })).error).toContain("uses a feature that is not supported here")
    }))

  // live clock: real time is the point, 5 s for what a backtracking engine would not finish
  it.live("a glob that backtracks catastrophically in a JavaScript regex is matched in linear time", () =>
    Effect.gen(function*() {
      fixture.write(`evil/${"a".repeat(200)}`, "x")
      const start = Date.now()
      const out = outputOf(yield* find({ name_pattern: "*a*a*a*a*a*a*a*a*b", directory: "evil" }))
      expect(Date.now() - start).toBeLessThan(5000)
      expect(out).toBe("No files or directories named \"*a*a*a*a*a*a*a*a*b\" in evil.")
      // a repetition of a repetition (an extglob): exponential for a backtracking engine
      const nested = outputOf(yield* find({ name_pattern: "*(*)b", directory: "evil" }))
      expect(nested).toBe("No files or directories named \"*(*)b\" in evil.")
      expect(Date.now() - start).toBeLessThan(5000)
    }))

  it.effect("a missing directory, a file as the directory, a directory leading out", () =>
    Effect.gen(function*() {
      expect((yield* find({ name_pattern: "*", directory: "nope" })).error).toBe("directory \"nope\" does not exist")
      expect((yield* find({ name_pattern: "*", directory: "README.md" })).error).toBe("\"README.md\" is a file, not a directory")
      for (const directory of ["..", "../outside", Path.dirname(fixture.ws)]) {
        expect(Option.isSome(traversalOf(yield* Effect.exit(find({ name_pattern: "*", directory })))), directory).toBe(true)
      }
    }))

  it.effect("is a read-only ported file tool", () =>
    Effect.sync(() => {
      expect(findFiles.spec.readOnly).toBe(true)
      expect(findFiles.tags).toEqual(["files", "ported"])
      expect(findFiles.pathFields).toEqual(["directory"])
      expect(findFiles.spec.required).toEqual(["name_pattern"])
    }))
})
