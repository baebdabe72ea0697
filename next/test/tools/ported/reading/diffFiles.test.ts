import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { DIFF_MAX_BYTES, diffFiles } from "../../../../src/tools/ported/reading/diffFiles.js"
import { diffFilesWorkspace } from "./diffFilesHarness.js"
import { outputOf, traversalOf } from "./harness.js"

const { diff, fixture } = diffFilesWorkspace()

describe("diff_files", () => {
  it.effect("a unified diff with workspace-relative names", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* diff({ file_a: "a.txt", file_b: "b.txt" }))).toBe(
        "--- a.txt\n+++ b.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three"
      )
      expect(outputOf(yield* diff({ file_a: "a.txt", file_b: "b.txt", context_lines: 0 }))).toBe(
        "--- a.txt\n+++ b.txt\n@@ -2,1 +2,1 @@\n-two\n+2"
      )
    }))

  it.effect("context_lines separates or joins hunks", () =>
    Effect.gen(function*() {
      const two = outputOf(yield* diff({ file_a: "long-a.txt", file_b: "long-b.txt" }))
      expect(two.split("\n").filter((line) => line.startsWith("@@"))).toEqual(["@@ -2,7 +2,7 @@", "@@ -27,7 +27,7 @@"])
      const one = outputOf(yield* diff({ file_a: "long-a.txt", file_b: "long-b.txt", context_lines: 20 }))
      expect(one.split("\n").filter((line) => line.startsWith("@@"))).toEqual(["@@ -1,40 +1,40 @@"])
    }))

  it.effect("identical files; a missing final newline; CRLF; unicode; an empty file", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* diff({ file_a: "a.txt", file_b: "copy.txt" }))).toBe("The files are identical (a.txt, copy.txt).")
      expect(outputOf(yield* diff({ file_a: "a.txt", file_b: "a.txt" }))).toBe("The files are identical (a.txt, a.txt).")
      expect(outputOf(yield* diff({ file_a: "a.txt", file_b: "no-final.txt" }))).toBe(
        "--- a.txt\n+++ no-final.txt\n@@ -1,3 +1,3 @@\n one\n two\n-three\n+three\n\\ No newline at end of file"
      )
      // line endings are part of the lines: every line differs
      const crlf = outputOf(yield* diff({ file_a: "a.txt", file_b: "crlf.txt" }))
      expect(crlf).toContain("-one\n-two\n-three\n+one\r\n+two\r\n+three\r")
      expect(outputOf(yield* diff({ file_a: "unicode-a.txt", file_b: "unicode-b.txt" }))).toBe(
        "--- unicode-a.txt\n+++ unicode-b.txt\n@@ -1,2 +1,2 @@\n héllo\n-🙂\n+🙃"
      )
      expect(outputOf(yield* diff({ file_a: "empty.txt", file_b: "b.txt" }))).toBe(
        "--- empty.txt\n+++ b.txt\n@@ -0,0 +1,3 @@\n+one\n+2\n+three"
      )
    }))

  it.effect("a binary file, a missing file, a directory, a file over the cap are clear errors", () =>
    Effect.gen(function*() {
      expect((yield* diff({ file_a: "a.txt", file_b: "bin.dat" })).error).toBe("\"bin.dat\" is a binary file (4 bytes), not UTF-8 text")
      expect((yield* diff({ file_a: "missing.txt", file_b: "a.txt" })).error).toBe("\"missing.txt\" does not exist")
      expect((yield* diff({ file_a: "a.txt", file_b: "dir" })).error).toBe("\"dir\" is a directory, not a file")
      const big = Path.join(fixture.ws, "big.txt")
      Fs.writeFileSync(big, "")
      Fs.truncateSync(big, DIFF_MAX_BYTES + 1)
      const tooBig = yield* diff({ file_a: "a.txt", file_b: "big.txt" })
      Fs.rmSync(big)
      expect(tooBig.error).toBe(`"big.txt" is ${DIFF_MAX_BYTES + 1} bytes, over the ${DIFF_MAX_BYTES}-byte limit of a whole-file read`)
    }))

  it.effect("either path leading out is a PathTraversalError defect", () =>
    Effect.gen(function*() {
      for (const args of [{ file_a: "out.txt", file_b: "a.txt" }, { file_a: "a.txt", file_b: "../outside/secret.txt" }]) {
        expect(Option.isSome(traversalOf(yield* Effect.exit(diff(args))))).toBe(true)
      }
    }))

  it.effect("is a read-only ported file tool with two path fields", () =>
    Effect.sync(() => {
      expect(diffFiles.spec.readOnly).toBe(true)
      expect(diffFiles.tags).toEqual(["files", "ported"])
      expect(diffFiles.pathFields).toEqual(["file_a", "file_b"])
    }))
})
