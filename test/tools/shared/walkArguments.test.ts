/**
 * `shared/walkArguments.ts`: the patterns that would climb out of the walked directory (the
 * tools' words for a directory that cannot be walked are tested with each tool).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { openDirectory } from "../../../src/tools/shared/safeFs.js"
import { SafeFsError } from "../../../src/tools/shared/safeFsError.js"
import { directoryFailure, escapingPattern } from "../../../src/tools/shared/walkArguments.js"
import { tempDir } from "../../helpers/tempDir.js"

describe("escapingPattern", () => {
  it("is true for absolute patterns, drive letters and any .. segment, also inside braces and lists", () => {
    for (const bad of ["/etc/*", "\\\\server\\x", "C:/x", "c:x", "..", "../x", "a/../b", "a\\..\\b", "{a,..}/x", "x/{..}", "a/.."]) {
      expect(escapingPattern(bad), bad).toBe(true)
    }
    for (const ok of ["*.ts", "src/**/*.md", "...", "..x", "x..", "a/..b/c", "{a,b}", ":x", "ab:c", "1:x"]) {
      expect(escapingPattern(ok), ok).toBe(false)
    }
  })
})

describe("directoryFailure", () => {
  /** The tool's message for the failure of opening `directory` as a directory. */
  const messageFor = (directory: string) =>
    Effect.scoped(openDirectory(directory)).pipe(
      Effect.catch(directoryFailure("list_files", directory)),
      Effect.result,
      Effect.map(Result.match({ onFailure: (error) => [error.tool, error.message], onSuccess: () => ["opened"] }))
    )

  it.effect("missing; a file; a path under a file, which cannot be looked at, called a file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("walk-arguments-")
      const file = Path.join(dir, "a.txt")
      Fs.writeFileSync(file, "x")
      expect(yield* messageFor(Path.join(dir, "gone"))).toEqual(["list_files", `directory "${Path.join(dir, "gone")}" does not exist`])
      expect(yield* messageFor(file)).toEqual(["list_files", `"${file}" is a file, not a directory`])
      const under = Path.join(file, "sub")
      expect(yield* messageFor(under)).toEqual(["list_files", `"${under}" is a file, not a directory`])
    }))

  it.effect("any other failure is told in its own words, not looked at again", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("walk-arguments-")
      const failure = new SafeFsError({ reason: "Io", path: dir, code: "EIO", message: `cannot list "${dir}": EIO` })
      const told = yield* Effect.result(directoryFailure("find_files", dir)(failure))
      expect(Result.isFailure(told) && [told.failure.tool, told.failure.message, told.failure.cause]).toEqual([
        "find_files",
        `cannot list "${dir}": EIO`,
        failure
      ])
    }))
})
