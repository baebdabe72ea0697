import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { searchFiles } from "../../../../src/tools/ported/reading/searchFiles.js"
import { parameterDescription } from "../../../helpers/describedTools.js"
import { call, makeWorkspace, outputOf, traversalOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("search-files-")
  const { outside, write } = fixture
  write("src/a.ts", "const x = 1\nconst needle = 2\n// NEEDLE upper\n")
  write("src/b.md", "a needle in markdown\n")
  write("src/deep/c.ts", "no match\nneedle at line 2\n")
  write("crlf.txt", "first\r\nneedle crlf\r\n")
  write("unicode.txt", "héllo needle 🙂\n")
  write("empty.txt", "")
  write("no-final.txt", "x\nneedle end")
  write(".git/config", "needle in git\n")
  write("node_modules/pkg/index.js", "needle in node_modules\n")
  write("sub/node_modules/x.js", "needle in a nested node_modules\n")
  write("bin.dat", Buffer.concat([Buffer.from("needle\n"), Buffer.from([0, 1, 2, 3]), Buffer.from("needle\n")]))
  // a binary first block, and the literal only after it
  write("big.bin", Buffer.concat([Buffer.alloc(70 * 1024), Buffer.from("needle after the first block\n")]))
  Fs.writeFileSync(Path.join(outside, "secret.txt"), "needle outside\n")
})

afterAll(() => fixture.remove())

const search = (args: Record<string, unknown>) => call(fixture.ws, "search_files", args)

describe("search_files", () => {
  it.effect("finds a literal: path:line: text, breadth first, names sorted; skips binary files, .git and node_modules", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* search({ pattern: "needle" }))).toBe([
        "crlf.txt:2: needle crlf",
        "no-final.txt:2: needle end",
        "unicode.txt:1: héllo needle 🙂",
        "src/a.ts:2: const needle = 2",
        "src/b.md:1: a needle in markdown",
        "src/deep/c.ts:2: needle at line 2"
      ].join("\n"))
    }))

  it.effect("case_sensitive=false, regex, glob and directory narrow or widen the search", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* search({ pattern: "NEEDLE", case_sensitive: false, directory: "src" }))).toBe([
        "src/a.ts:2: const needle = 2",
        "src/a.ts:3: // NEEDLE upper",
        "src/b.md:1: a needle in markdown",
        "src/deep/c.ts:2: needle at line 2"
      ].join("\n"))
      expect(outputOf(yield* search({ pattern: "^const \\w+ = \\d$", regex: true }))).toBe(
        "src/a.ts:1: const x = 1\nsrc/a.ts:2: const needle = 2"
      )
      expect(outputOf(yield* search({ pattern: "NEEDLE|crlf$", regex: true, case_sensitive: false, glob: "*.txt" }))).toBe(
        "crlf.txt:2: needle crlf\nno-final.txt:2: needle end\nunicode.txt:1: héllo needle 🙂"
      )
      expect(outputOf(yield* search({ pattern: "needle", glob: "*.md" }))).toBe("src/b.md:1: a needle in markdown")
      expect(outputOf(yield* search({ pattern: "needle", glob: "src/deep/*.ts" }))).toBe("src/deep/c.ts:2: needle at line 2")
      expect(outputOf(yield* search({ pattern: "needle", directory: "src/deep" }))).toBe("src/deep/c.ts:2: needle at line 2")
      // a regex special character in a literal is literal
      expect(outputOf(yield* search({ pattern: "x = 1", directory: "src" }))).toBe("src/a.ts:1: const x = 1")
      expect(outputOf(yield* search({ pattern: "(x" }))).toBe("No matches for \"(x\" in the workspace.")
    }))

  it.effect("the glob's description shows both forms, and its examples do what it says", () =>
    Effect.gen(function*() {
      const quoted = [...parameterDescription(searchFiles.spec, "glob").matchAll(/"([^"]+)"/g)].map((match) => match[1])
      expect(quoted).toEqual(["*.ts", "/", "src/**/*.ts"])
      // a name glob matches at any depth; one with a "/" is matched against the path below the directory
      const both = "src/a.ts:2: const needle = 2\nsrc/deep/c.ts:2: needle at line 2"
      expect(outputOf(yield* search({ pattern: "needle", glob: "*.ts" }))).toBe(both)
      expect(outputOf(yield* search({ pattern: "needle", glob: "src/**/*.ts" }))).toBe(both)
      expect(outputOf(yield* search({ pattern: "needle", glob: "deep/*.ts", directory: "src" }))).toBe("src/deep/c.ts:2: needle at line 2")
      expect(outputOf(yield* search({ pattern: "needle", glob: "deep/*.ts" }))).toBe(
        "No matches for \"needle\" in the workspace (files matching \"deep/*.ts\")."
      )
    }))

  it.effect("no match, an empty file, a bad regex, a bad glob", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* search({ pattern: "zzz" }))).toBe("No matches for \"zzz\" in the workspace.")
      expect(outputOf(yield* search({ pattern: "zzz", glob: "*.ts", directory: "src" }))).toBe(
        "No matches for \"zzz\" in src (files matching \"*.ts\")."
      )
      const bad = yield* search({ pattern: "(unclosed", regex: true })
      expect(bad.errorCode).toBe("TOOL_ERROR")
      expect(bad.error).toContain("invalid regular expression \"(unclosed\": ")
      expect(bad.error).toContain("missing closing )")
      const lookahead = yield* search({ pattern: "a(?=b)", regex: true })
      expect(lookahead.error).toContain("RE2 syntax: no look-around or back-references")
      expect((yield* search({ pattern: "x", glob: "../*" })).error).toBe("the glob \"../*\" must be relative and must not contain \"..\"")
      expect((yield* search({ pattern: "x", glob: "!(a).ts" })).error).toContain("not supported")
      expect((yield* search({ pattern: "" })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("max_results caps the lines and says how to get the rest", () =>
    Effect.gen(function*() {
      fixture.write("many/hits.txt", Array.from({ length: 30 }, (_, i) => `hit ${i + 1}\n`).join(""))
      const capped = outputOf(yield* search({ pattern: "hit", directory: "many", max_results: 10 }))
      const lines = capped.split("\n")
      expect(lines.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `many/hits.txt:${i + 1}: hit ${i + 1}`))
      expect(lines.slice(10)).toEqual([
        "(showing the first 10 matching lines; there are more: raise max_results (at most 1000), or narrow the search with directory or glob)"
      ])
      // exactly as many as asked for: no note
      expect(outputOf(yield* search({ pattern: "hit", directory: "many", max_results: 30 })).split("\n")).toHaveLength(30)
      expect((yield* search({ pattern: "hit", max_results: 1001 })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("large files are streamed in whole lines; a long line is shown around its match", () =>
    Effect.gen(function*() {
      // 3 MiB of lines, the literal on the first line and past the first chunk
      const filler = "x".repeat(99) + "\n"
      const lines = Array.from({ length: 30_000 }, (_, i) => (i === 0 || i === 20_000 ? `needle ${i + 1}\n` : filler))
      fixture.write("large/big.txt", lines.join(""))
      fixture.write("large/wide.txt", `${"a".repeat(5000)} needle ${"b".repeat(5000)}\n`)
      const out = outputOf(yield* search({ pattern: "needle", directory: "large" }))
      const [first, second, wide] = out.split("\n")
      expect(first).toBe("large/big.txt:1: needle 1")
      expect(second).toBe("large/big.txt:20001: needle 20001")
      expect(wide?.startsWith("large/wide.txt:1: …a")).toBe(true)
      expect(wide?.endsWith("b…")).toBe(true)
      expect(wide).toContain(" needle ")
      expect(wide?.length).toBeLessThan(400)
    }))

  // live clock: real time is the point, 5 s for what a backtracking engine would not finish
  it.live("a catastrophic regex on a long line returns quickly (linear-time engine)", () =>
    Effect.gen(function*() {
      fixture.write("redos/evil.txt", `${"a".repeat(100_000)}b\naaa\n`)
      const start = Date.now()
      const out = outputOf(yield* search({ pattern: "(a+)+$", regex: true, directory: "redos" }))
      expect(Date.now() - start).toBeLessThan(5000)
      expect(out).toBe("redos/evil.txt:2: aaa")
      const nested = outputOf(yield* search({ pattern: "(x+x+)+y", regex: true, directory: "redos" }))
      expect(nested).toBe("No matches for \"(x+x+)+y\" in redos.")
    }))

  it.effect("a missing directory, a file as the directory, a directory leading out", () =>
    Effect.gen(function*() {
      expect((yield* search({ pattern: "x", directory: "nope" })).error).toBe("directory \"nope\" does not exist")
      expect((yield* search({ pattern: "x", directory: "empty.txt" })).error).toBe("\"empty.txt\" is a file, not a directory")
      for (const directory of ["..", "../outside", fixture.outside]) {
        const exit = yield* Effect.exit(search({ pattern: "needle", directory }))
        expect(Option.isSome(traversalOf(exit)), directory).toBe(true)
      }
    }))

  it.effect("is a read-only ported file tool", () =>
    Effect.sync(() => {
      expect(searchFiles.spec.readOnly).toBe(true)
      expect(searchFiles.tags).toEqual(["files", "ported"])
      expect(searchFiles.pathFields).toEqual(["directory"])
      expect(searchFiles.spec.required).toEqual(["pattern"])
    }))
})
