import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { call, fingerprint, makeWorkspace, systemFor, text, traversalOf } from "./harness.js"

const { outside, remove, ws } = makeWorkspace("replace-diff-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)
const put = (rel: string, content: string | Uint8Array, mode?: number) => {
  Fs.mkdirSync(Path.dirname(at(rel)), { recursive: true })
  Fs.writeFileSync(at(rel), content)
  if (mode !== undefined) Fs.chmodSync(at(rel), mode)
}

describe("replace_in_file", () => {
  layer(systemFor(ws))((it) => {
    it.effect("replaces text that occurs once, keeping the mode", () =>
      Effect.gen(function*() {
        put("src/app.ts", "const a = 1\nconst b = 2\n", 0o640)
        const r = yield* call("replace_in_file", { filepath: "src/app.ts", old_text: "b = 2", new_text: "b = 3" })
        expect(r.output).toBe("Replaced 1 occurrence in src/app.ts")
        expect(text(at("src/app.ts"))).toBe("const a = 1\nconst b = 3\n")
        expect(Fs.statSync(at("src/app.ts")).mode & 0o777).toBe(0o640)
      }))

    it.effect("not found, or ambiguous without count: an error naming the lines, the file untouched", () =>
      Effect.gen(function*() {
        put("src/dup.txt", "x = 1\ny\nx = 1\nz\nx = 1\n")
        const before = fingerprint(at("src/dup.txt"))
        const missing = yield* call("replace_in_file", { filepath: "src/dup.txt", old_text: "X = 1", new_text: "q" })
        expect(missing.error).toBe(
          "old_text was not found in src/dup.txt; nothing was changed (the match is exact: whitespace, indentation and case count)"
        )
        const ambiguous = yield* call("replace_in_file", { filepath: "src/dup.txt", old_text: "x = 1", new_text: "q" })
        expect(ambiguous.error).toBe(
          "old_text occurs 3 times in src/dup.txt (at lines 1, 3, 5); nothing was changed: pass count to replace the " +
            "first ones, or include surrounding lines in old_text to make it unique"
        )
        const empty = yield* call("replace_in_file", { filepath: "src/dup.txt", old_text: "", new_text: "q" })
        expect(empty.errorCode).toBe("INVALID_ARGUMENTS")
        expect(fingerprint(at("src/dup.txt"))).toEqual(before)
      }))

    it.effect("count replaces the first occurrences, in order", () =>
      Effect.gen(function*() {
        put("src/count.txt", "a a a a")
        const r = yield* call("replace_in_file", { filepath: "src/count.txt", old_text: "a", new_text: "b", count: 2 })
        expect(r.output).toBe("Replaced 2 occurrences in src/count.txt (2 more occurrences left unchanged)")
        expect(text(at("src/count.txt"))).toBe("b b a a")
        const all = yield* call("replace_in_file", { filepath: "src/count.txt", old_text: "a", new_text: "", count: 10 })
        expect(all.output).toBe("Replaced 2 occurrences in src/count.txt")
        expect(text(at("src/count.txt"))).toBe("b b  ")
      }))

    it.effect("a CRLF file is matched and edited with CRLF; no final newline, a BOM and unicode kept", () =>
      Effect.gen(function*() {
        put("src/win.txt", "\uFEFFfirst\r\nsecond\r\nthird")
        const r = yield* call("replace_in_file", { filepath: "src/win.txt", old_text: "first\nsecond", new_text: "1st\n2nd 😀\n2.5" })
        expect(r.success).toBe(true)
        expect(Fs.readFileSync(at("src/win.txt"))).toEqual(Buffer.from("\uFEFF1st\r\n2nd 😀\r\n2.5\r\nthird"))
      }))

    it.effect("a binary file, a directory, a missing file: clear errors", () =>
      Effect.gen(function*() {
        put("src/img.bin", Buffer.from([0, 1, 2, 255, 254]))
        const before = fingerprint(at("src/img.bin"))
        const bin = yield* call("replace_in_file", { filepath: "src/img.bin", old_text: "a", new_text: "b" })
        expect(bin.error).toBe("\"src/img.bin\" is a binary file (5 bytes), not UTF-8 text; it was not changed")
        expect(fingerprint(at("src/img.bin"))).toEqual(before)
        expect((yield* call("replace_in_file", { filepath: "src", old_text: "a", new_text: "b" })).error).toBe(
          "\"src\" is a directory, not a file"
        )
        expect((yield* call("replace_in_file", { filepath: "nope.txt", old_text: "a", new_text: "b" })).error).toBe(
          "\"nope.txt\" does not exist"
        )
      }))
  })
})

const DIFF = `--- a/src/patch.txt
+++ b/src/patch.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
@@ -6,3 +6,4 @@
 six
 seven
 eight
+eight and a half
`

describe("apply_diff", () => {
  layer(systemFor(ws))((it) => {
    it.effect("applies a unified diff of several hunks, keeping the mode", () =>
      Effect.gen(function*() {
        put("src/patch.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n", 0o600)
        const r = yield* call("apply_diff", { filepath: "src/patch.txt", diff: DIFF })
        expect(r.output).toBe("Applied 2 hunks to src/patch.txt (+2 -1 lines)")
        expect(text(at("src/patch.txt"))).toBe("one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\neight and a half\n")
        expect(Fs.statSync(at("src/patch.txt")).mode & 0o777).toBe(0o600)
      }))

    it.effect("a hunk that does not apply: the error names it, and the file is byte for byte untouched", () =>
      Effect.gen(function*() {
        put("src/stale.txt", "one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\neight\n")
        const before = fingerprint(at("src/stale.txt"))
        const r = yield* call("apply_diff", { filepath: "src/stale.txt", diff: DIFF })
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toBe(
          "hunk 2 of 2 (@@ -6,3 +6,4 @@) does not apply to src/stale.txt: its context or removed lines do not match " +
            "the file; nothing was changed (read the file again and make the diff against its current text)"
        )
        expect(fingerprint(at("src/stale.txt"))).toEqual(before)
      }))

    it.effect("an LF diff applies to a CRLF file as CRLF; a file without a final newline keeps lacking one", () =>
      Effect.gen(function*() {
        put("src/crlf.txt", "a\r\nb\r\nc\r\n")
        yield* call("apply_diff", { filepath: "src/crlf.txt", diff: "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n" })
        expect(text(at("src/crlf.txt"))).toBe("a\r\nB\r\nc\r\n")
        put("src/nofinal.txt", "a\nb\nc")
        yield* call("apply_diff", { filepath: "src/nofinal.txt", diff: "@@ -1,2 +1,2 @@\n-a\n+A\n b\n" })
        expect(text(at("src/nofinal.txt"))).toBe("A\nb\nc")
        // a diff that adds the final newline says so, as diff -u prints it
        yield* call("apply_diff", {
          filepath: "src/nofinal.txt",
          diff: "@@ -2,2 +2,2 @@\n b\n-c\n\\ No newline at end of file\n+c\n"
        })
        expect(text(at("src/nofinal.txt"))).toBe("A\nb\nc\n")
      }))

    it.effect("unicode lines patch like any others", () =>
      Effect.gen(function*() {
        put("src/bom.txt", "\uFEFFa\nb\n")
        yield* call("apply_diff", { filepath: "src/bom.txt", diff: "@@ -1,2 +1,2 @@\n-a\n+A\n b\n" })
        expect(Fs.readFileSync(at("src/bom.txt"))).toEqual(Buffer.from("\uFEFFA\nb\n"))
        put("src/uni.txt", "héllo\n世界\n")
        yield* call("apply_diff", { filepath: "src/uni.txt", diff: "@@ -1,2 +1,2 @@\n héllo\n-世界\n+мир 😀\n" })
        expect(text(at("src/uni.txt"))).toBe("héllo\nмир 😀\n")
      }))

    it.effect("a malformed diff, a diff of two files, a diff without hunks: clear errors, nothing changed", () =>
      Effect.gen(function*() {
        put("src/keep.txt", "a\nb\n")
        const before = fingerprint(at("src/keep.txt"))
        const bad = yield* call("apply_diff", { filepath: "src/keep.txt", diff: "@@ -1,2 +1,2 @@\n-a\n+A\n" })
        expect(bad.error).toMatch(/^the diff cannot be parsed: .*; nothing was changed$/)
        const two = yield* call("apply_diff", {
          filepath: "src/keep.txt",
          diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+A\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+A\n"
        })
        expect(two.error).toBe("the diff changes 2 files; apply_diff takes the diff of one file per call")
        const none = yield* call("apply_diff", { filepath: "src/keep.txt", diff: "just words" })
        expect(none.error).toBe("the diff has no hunks (lines starting with @@ -a,b +c,d @@)")
        expect(fingerprint(at("src/keep.txt"))).toEqual(before)
      }))

    it.effect("an empty file, a binary file, a missing file", () =>
      Effect.gen(function*() {
        put("src/empty.txt", "")
        const r = yield* call("apply_diff", { filepath: "src/empty.txt", diff: "@@ -0,0 +1,2 @@\n+x\n+y\n" })
        expect(r.success).toBe(true)
        expect(text(at("src/empty.txt"))).toBe("x\ny\n")
        put("src/b.bin", Buffer.from([1, 0, 2]))
        expect((yield* call("apply_diff", { filepath: "src/b.bin", diff: "@@ -1 +1 @@\n-a\n+b\n" })).error).toContain(
          "is a binary file"
        )
        expect((yield* call("apply_diff", { filepath: "src/none.txt", diff: "@@ -1 +1 @@\n-a\n+b\n" })).error).toBe(
          "\"src/none.txt\" does not exist"
        )
      }))

    it.effect("a path leading out of the workspace is a PATH_TRAVERSAL defect", () =>
      Effect.gen(function*() {
        Fs.writeFileSync(Path.join(outside, "o.txt"), "a\n")
        for (const [name, args] of [
          ["apply_diff", { filepath: "../outside/o.txt", diff: "@@ -1 +1 @@\n-a\n+b\n" }],
          ["replace_in_file", { filepath: "../outside/o.txt", old_text: "a", new_text: "b" }]
        ] as const) {
          expect(Option.isSome(traversalOf(yield* Effect.exit(call(name, args)))), name).toBe(true)
        }
        expect(text(Path.join(outside, "o.txt"))).toBe("a\n")
      }))
  })
})
