/**
 * The snapshot store: ids, the listing's order, skipped entries, offsets, and the tools' errors
 * when the store or the workspace cannot be read. `Random.fixed` (Effect 3) becomes the
 * `withDraws` helper: the draws `n / 2 ** 32` give the id digits `n`.
 */
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { newSnapshotId, SNAPSHOT_ID_PATTERN } from "../../../../src/tools/ported/managing/snapshots.js"
import { withDraws } from "../../../helpers/fixedRandom.js"
import { call, makeWorkspace, systemFor, tree } from "../editing/harness.js"
import { list, snapshotStoreIn } from "./snapshotStoreHarness.js"

const { remove, ws } = makeWorkspace("snapshot-store-")
const gone = makeWorkspace("snapshot-gone-")
afterAll(() => {
  remove()
  gone.remove()
})

const { at, emptyStore, forge, put } = snapshotStoreIn(ws)

describe("newSnapshotId", () => {
  it.effect("is the UTC time and 8 hex digits, a small random number padded with zeros, so ids sort by age", () =>
    Effect.gen(function*() {
      const small = yield* newSnapshotId(Date.UTC(2025, 0, 2, 15, 30, 12, 999))
      const large = yield* newSnapshotId(Date.UTC(2025, 0, 2, 15, 30, 13))
      expect(small).toBe("20250102-153012-00000005")
      expect(large).toBe("20250102-153013-abcdef12")
      expect(SNAPSHOT_ID_PATTERN.test(small) && SNAPSHOT_ID_PATTERN.test(large)).toBe(true)
      expect([large, small].sort()).toEqual([small, large])
    }).pipe(withDraws([5 / 2 ** 32, 0xabcdef12 / 2 ** 32])))
})

describe("list_snapshots: order, skipped entries, offsets, the read cap", () => {
  layer(systemFor(ws))((it) => {
    it.effect("newest first by the time taken whatever the ids; the same time, the greater id first", () =>
      Effect.gen(function*() {
        emptyStore()
        forge("s-a", { created_at: "2021-01-01T00:00:00.000Z" })
        forge("s-b", { created_at: "2020-01-01T00:00:00.000Z" })
        forge("t-a", { created_at: "2019-01-01T00:00:00.000Z" })
        forge("t-b", { created_at: "2019-01-01T00:00:00.000Z" })
        expect(yield* list()).toBe([
          "Snapshots, newest first (1-4 of 4):",
          "s-a  src/f.txt  2021-01-01T00:00:00.000Z  6 bytes",
          "s-b  src/f.txt  2020-01-01T00:00:00.000Z  6 bytes",
          "t-b  src/f.txt  2019-01-01T00:00:00.000Z  6 bytes",
          "t-a  src/f.txt  2019-01-01T00:00:00.000Z  6 bytes"
        ].join("\n"))
      }))

    it.effect("only regular .json files with a valid id are read; one damaged is counted", () =>
      Effect.gen(function*() {
        emptyStore()
        Fs.writeFileSync(at(".snapshots/broken.json"), "{ not json")
        Fs.mkdirSync(at(".snapshots/dir.json"))
        Fs.writeFileSync(at(".snapshots/bad id.json"), "{}")
        Fs.symlinkSync("broken.json", at(".snapshots/link.json"))
        Fs.writeFileSync(at(".snapshots/notes.txt"), "{}")
        expect(yield* list()).toBe("No snapshots.\n(1 snapshot with damaged metadata skipped)")
      }))

    it.effect("an offset past the last snapshot says how many there are", () =>
      Effect.gen(function*() {
        emptyStore()
        forge("o-1", {})
        forge("o-2", { source: "src/g.txt" })
        expect(yield* list({ offset: 5 })).toBe("No snapshots past offset 5 (there are 2).")
        expect(yield* list({ offset: 1, filepath: "src/g.txt" })).toBe("No snapshots of src/g.txt past offset 1 (there are 1).")
        expect(yield* list({ offset: 1 })).toBe(
          "Snapshots, newest first (2-2 of 2):\no-1  src/f.txt  2020-01-01T00:00:00.000Z  6 bytes"
        )
      }))
  })
})

describe("restore_snapshot: a store that cannot be read", () => {
  layer(systemFor(ws))((it) => {
    it.effect("metadata that is not a file: the snapshot is damaged, not missing", () =>
      Effect.gen(function*() {
        emptyStore()
        Fs.mkdirSync(at(".snapshots/odd.json"))
        const r = yield* call("restore_snapshot", { snapshot_id: "odd" })
        expect(r.error).toBe("snapshot odd is damaged: \".snapshots/odd.json\" is a directory, not a file")
      }))

    it.effect("metadata without its bytes: the snapshot cannot be read; nothing is restored", () =>
      Effect.gen(function*() {
        emptyStore()
        put("src/f.txt", "now")
        forge("lost", {})
        Fs.rmSync(at(".snapshots/lost.snap"))
        const r = yield* call("restore_snapshot", { snapshot_id: "lost" })
        expect(r.error).toBe("snapshot lost cannot be read: \".snapshots/lost.snap\" does not exist")
        expect(Fs.readFileSync(at("src/f.txt"), "utf8")).toBe("now")
      }))

    it.effect("a target that is now a directory: nothing is restored", () =>
      Effect.gen(function*() {
        emptyStore()
        put("src/was-file/inner.txt", "inner")
        forge("to-dir", { source: "src/was-file" })
        const r = yield* call("restore_snapshot", { snapshot_id: "to-dir" })
        expect(r.error).toBe("\"src/was-file\" is a directory, not a file; nothing was restored")
        expect(tree(at("src/was-file"))).toEqual(["inner.txt"])
      }))
  })
})

describe("snapshot_file: limits", () => {
  layer(systemFor(ws))((it) => {
    it.effect("a file over the snapshot limit is refused by size; nothing is stored", () =>
      Effect.gen(function*() {
        emptyStore()
        put("src/huge.bin", "")
        Fs.truncateSync(at("src/huge.bin"), 64 * 1024 * 1024 + 1)
        const r = yield* call("snapshot_file", { filepath: "src/huge.bin" })
        expect(r.error).toBe("src/huge.bin is 67108865 bytes; snapshot_file keeps files of at most 67108864 bytes")
        expect(tree(at(".snapshots"))).toEqual([])
      }))
  })
})

describe("the snapshot tools when the workspace root is gone", () => {
  layer(systemFor(gone.ws))((it) => {
    it.effect("each says why, as a tool error", () =>
      Effect.gen(function*() {
        Fs.rmSync(gone.ws, { recursive: true })
        const results = [
          yield* call("list_snapshots", {}),
          yield* call("restore_snapshot", { snapshot_id: "any" }),
          yield* call("snapshot_file", { filepath: "a.txt" })
        ]
        expect(results.map((r) => [r.errorCode, r.error])).toEqual(Array(3).fill(["TOOL_ERROR", "\".\" does not exist"]))
      }))
  })
})
