/**
 * `removeIfSame` when the removal itself fails (`EIO` from `unlink`, `lstat` failing): it
 * reports `false`, so that a caller never believes a file gone that is still there.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { openDirectory } from "../../../src/tools/shared/safeFs.js"
import { entryOf, removeIfSame } from "../../../src/tools/shared/safeFsEntry.js"
import { failingFor } from "../../helpers/fsCalls.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const dir = makeTempDirSync("safe-fs-entry-failures-")
afterAll(() => Fs.rmSync(dir, { recursive: true, force: true }))

/** `removeIfSame` of a file of ours named `name` while `call` fails with EIO for it; the file is left in place. */
const removeWhileFailing = (call: "unlink" | "lstat", name: string) =>
  Effect.gen(function*() {
    const path = Path.join(dir, name)
    Fs.writeFileSync(path, "mine")
    const own = Fs.lstatSync(path, { bigint: true })
    const open = yield* openDirectory(dir)
    const removed = yield* Effect.scoped(Effect.gen(function*() {
      yield* failingFor(call, "EIO", { name })
      return yield* removeIfSame(entryOf(open, name), own)
    }))
    return { path, removed }
  })

describe("removeIfSame when the file system fails", () => {
  it.effect("reports false, and the file is still there, when unlink fails", () =>
    Effect.gen(function*() {
      const { path, removed } = yield* removeWhileFailing("unlink", "stuck.txt")
      expect(removed).toBe(false)
      expect(Fs.readFileSync(path, "utf8")).toBe("mine")
    }))

  it.effect("reports false when the entry cannot even be looked at", () =>
    Effect.gen(function*() {
      const { path, removed } = yield* removeWhileFailing("lstat", "unseen.txt")
      expect(removed).toBe(false)
      expect(Fs.existsSync(path)).toBe(true)
    }))
})
