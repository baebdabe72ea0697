/**
 * list_snapshots at its read cap, on a store written by hand: only the newest LIST_READ_MAX
 * metadata files are read (newest by id, which is not name order), the damaged ones among them
 * counted, and the listing says that only so many were read. In the slow lane: the store holds
 * 5,000 metadata files (the cap is the point), about 3 s of CPU. The rest of the store's
 * tests are in `snapshotStore.test.ts`.
 */
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { LIST_READ_MAX } from "../../../../src/tools/ported/managing/listSnapshots.js"
import { makeWorkspace, systemFor } from "../editing/harness.js"
import { list, snapshotStoreIn } from "./snapshotStoreHarness.js"

const { remove, ws } = makeWorkspace("snapshot-store-cap-")
afterAll(remove)

const { at, emptyStore, forge } = snapshotStoreIn(ws)

describe("list_snapshots: order, skipped entries, offsets, the read cap", () => {
  layer(systemFor(ws))((it) => {
    it.effect(`only the newest ${LIST_READ_MAX} metadata files are read, and the listing says so`, () =>
      Effect.gen(function*() {
        emptyStore()
        // ids in name order ("a-b.json" before "a.json") are not in id order ("a" before "a-b")
        forge("a", {})
        forge("a-b", {})
        // junk metadata files after them in id order (links to one empty file: damaged)
        Fs.writeFileSync(at(".snapshots/junk"), "")
        for (let i = 1; i < LIST_READ_MAX; i++) Fs.linkSync(at(".snapshots/junk"), at(`.snapshots/j-${String(i).padStart(5, "0")}.json`))
        expect(yield* list()).toBe([
          "Snapshots, newest first (1-1 of 1):",
          "a-b  src/f.txt  2020-01-01T00:00:00.000Z  6 bytes",
          `(${LIST_READ_MAX - 1} snapshots with damaged metadata skipped)`,
          `(only the newest ${LIST_READ_MAX} of ${LIST_READ_MAX + 1} snapshots in .snapshots were read)`
        ].join("\n"))
        emptyStore()
      }))
  })
})
