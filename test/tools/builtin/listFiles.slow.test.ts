/**
 * `list_files`'s cap on the entries a walk visits (LIST_FILES_MAX_VISITED): exactly that many is
 * a full listing, one more stops the walk and says so; and a walk goes no deeper than its
 * pattern can match, so a subdirectory that would pass the cap is not visited. In the slow lane:
 * each makes 50,000 files (the cap is the point), 2-3 s of CPU a test. The rest of the tool's
 * tests are in `listFiles.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { LIST_FILES_MAX_VISITED } from "../../../src/tools/builtin/listFiles.js"
import { tempDir } from "../../helpers/tempDir.js"
import { list } from "./listFilesHarness.js"

describe("list_files: notes, kinds and patterns", () => {
  it.effect("stops after visiting LIST_FILES_MAX_VISITED entries and says so; exactly that many is a full listing", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("list-visited-")
      for (let i = 0; i < LIST_FILES_MAX_VISITED; i++) Fs.writeFileSync(Path.join(root, `f${i}`), "")
      expect((yield* list({ pattern: "none*" }, root)).output).toBe(
        "No entries in the workspace root matching \"none*\" (this level only)."
      )
      Fs.writeFileSync(Path.join(root, "one-more"), "")
      expect((yield* list({ pattern: "none*" }, root)).output).toBe(
        "No entries in the workspace root matching \"none*\" (this level only).\n" +
          `(the listing stopped after visiting ${LIST_FILES_MAX_VISITED} entries; narrow it with a more specific pattern or a subdirectory)`
      )
    }), 60_000)

  it.effect("the walk goes no deeper than the pattern can match: a crowded subdirectory is not visited", () =>
    Effect.gen(function*() {
      // visiting sub/ would pass LIST_FILES_MAX_VISITED and say so
      const root = yield* tempDir("list-shallow-")
      Fs.mkdirSync(Path.join(root, "sub"))
      for (let i = 0; i < LIST_FILES_MAX_VISITED; i++) Fs.writeFileSync(Path.join(root, "sub", `f${i}`), "")
      for (const pattern of ["s*", "sub", "*"]) {
        expect((yield* list({ pattern }, root)).output, pattern).toBe(
          `1 entry in the workspace root matching "${pattern}" (this level only):\n[dir]  sub/`
        )
      }
      // one level down is listed, and counted
      expect((yield* list({ pattern: "sub/f1" }, root)).output).toBe(
        "1 entry in the workspace root matching \"sub/f1\" (this level only):\n[file] sub/f1 (0 bytes)\n" +
          `(the listing stopped after visiting ${LIST_FILES_MAX_VISITED} entries; narrow it with a more specific pattern or a subdirectory)`
      )
    }), 60_000)
})
