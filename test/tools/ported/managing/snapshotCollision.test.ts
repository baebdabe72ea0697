/**
 * An id that is already taken (as two snapshots in one second with the same random part would
 * get): the new snapshot never replaces the files of the old one. The id's time comes from the
 * test clock and its random part from the fiber's `Random`, seeded the same for each call, so
 * two calls get the same id (`Random.withSeed`, Effect 4's form of `Effect.withRandom(Random.make(seed))`).
 */
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Random } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { call, makeWorkspace, systemFor, tree } from "../editing/harness.js"

const { remove, ws } = makeWorkspace("snapshot-collision-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)

/** A snapshot of file.txt whose id's random part is always the same (a generator seeded alike for each call). */
const snapshot = Effect.suspend(() =>
  call("snapshot_file", { filepath: "file.txt" }).pipe(Random.withSeed("same seed"))
)

/** The first snapshot, taken now: its id. */
const first = Effect.gen(function*() {
  Fs.rmSync(at(".snapshots"), { recursive: true, force: true })
  Fs.writeFileSync(at("file.txt"), "old bytes")
  expect((yield* snapshot).success).toBe(true)
  const [meta] = tree(at(".snapshots")).filter((name) => name.endsWith(".json"))
  expect(meta).toMatch(/^19700101-000000-[0-9a-f]{8}\.json$/)
  Fs.writeFileSync(at("file.txt"), "new")
  return (meta ?? "").replace(/\.json$/, "")
})

describe("snapshot_file with an id already taken", () => {
  layer(systemFor(ws))((it) => {
    it.effect("the bytes of the old snapshot are kept, and no metadata is written", () =>
      Effect.gen(function*() {
        const id = yield* first
        // its metadata gone: only its bytes hold the id
        Fs.rmSync(at(`.snapshots/${id}.json`))
        const r = yield* snapshot
        expect(r.error).toBe(`".snapshots/${id}.snap" already exists (a file); pass overwrite: true to replace it`)
        expect(tree(at(".snapshots"))).toEqual([`${id}.snap`])
        expect(Fs.readFileSync(at(`.snapshots/${id}.snap`), "utf8")).toBe("old bytes")
      }))

    it.effect("the metadata of the old snapshot is kept, and the new bytes are taken back out", () =>
      Effect.gen(function*() {
        const id = yield* first
        const metadata = Fs.readFileSync(at(`.snapshots/${id}.json`), "utf8")
        // its bytes gone: only its metadata holds the id
        Fs.rmSync(at(`.snapshots/${id}.snap`))
        const r = yield* snapshot
        expect(r.error).toBe(`".snapshots/${id}.json" already exists (a file); pass overwrite: true to replace it`)
        expect(tree(at(".snapshots"))).toEqual([`${id}.json`])
        expect(Fs.readFileSync(at(`.snapshots/${id}.json`), "utf8")).toBe(metadata)
      }))
  })
})
