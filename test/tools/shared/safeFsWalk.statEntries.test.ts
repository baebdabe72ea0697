/** `statEntries`: the `lstat` of each name asked for in one directory, or the failure for it. */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { statEntries } from "../../../src/tools/shared/safeFsWalk.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const dir = makeTempDirSync("safe-fs-stat-entries-")
afterAll(() => Fs.rmSync(dir, { recursive: true, force: true }))
Fs.writeFileSync(Path.join(dir, "file.txt"), "12345")
Fs.mkdirSync(Path.join(dir, "sub"))
Fs.symlinkSync("file.txt", Path.join(dir, "link"))

describe("statEntries", () => {
  it.effect("gives each name its own stats, a link not followed, and a missing name its failure", () =>
    Effect.gen(function*() {
      const results = yield* statEntries(dir, ["file.txt", "sub", "link", "missing"])
      expect([...results.keys()]).toEqual(["file.txt", "sub", "link", "missing"])
      const file = results.get("file.txt")
      expect(file !== undefined && Result.isSuccess(file) && file.success.isFile() && file.success.size).toBe(5n)
      const sub = results.get("sub")
      expect(sub !== undefined && Result.isSuccess(sub) && sub.success.isDirectory()).toBe(true)
      const link = results.get("link")
      expect(link !== undefined && Result.isSuccess(link) && link.success.isSymbolicLink()).toBe(true)
      const missing = results.get("missing")
      expect(missing !== undefined && Result.isFailure(missing) && missing.failure.reason).toBe("NotFound")
    }))

  it.effect("gives every name the failure to open a directory that is not there", () =>
    Effect.gen(function*() {
      const results = yield* statEntries(Path.join(dir, "nowhere"), ["a", "b"])
      expect([...results.keys()]).toEqual(["a", "b"])
      for (const result of results.values()) expect(Result.isFailure(result) && result.failure.reason).toBe("NotFound")
    }))
})
