/**
 * How `snapshot_file` and `restore_snapshot` fail, each message naming what went wrong: a file
 * over the snapshot cap is refused with both sizes; a snapshot whose bytes are gone "cannot be
 * read"; a restore whose target cannot be written says that nothing was restored.
 */
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { SNAPSHOT_MAX_BYTES } from "../../../../src/tools/ported/managing/snapshots.js"
import { call, makeWorkspace, systemFor } from "../editing/harness.js"

const { remove, ws } = makeWorkspace("snapshot-failures-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)

/** Takes a snapshot of `rel` (written with `content`) and returns its id. */
const snapshotOf = (rel: string, content: string) =>
  Effect.gen(function*() {
    Fs.writeFileSync(at(rel), content)
    const r = yield* call("snapshot_file", { filepath: rel })
    const id = /^Snapshot ([A-Za-z0-9_-]+) of /.exec(String(r.output))?.[1]
    if (id === undefined) return yield* Effect.die(new Error(`no snapshot: ${r.error}`))
    return id
  })

describe("snapshot failures", () => {
  layer(systemFor(ws))((it) => {
    it.effect("a file over the cap is refused with both sizes, and nothing is stored", () =>
      Effect.gen(function*() {
        // sparse: no 64 MiB written
        Fs.writeFileSync(at("src/big.bin"), "")
        Fs.truncateSync(at("src/big.bin"), SNAPSHOT_MAX_BYTES + 1)
        const r = yield* call("snapshot_file", { filepath: "src/big.bin" })
        expect(r.error).toBe(
          `src/big.bin is ${SNAPSHOT_MAX_BYTES + 1} bytes; snapshot_file keeps files of at most ${SNAPSHOT_MAX_BYTES} bytes`
        )
        const stored = Fs.existsSync(at(".snapshots")) ? Fs.readdirSync(at(".snapshots")) : []
        expect(stored).toEqual([])
        Fs.rmSync(at("src/big.bin"))
      }))

    it.effect("a snapshot whose bytes are gone cannot be read; the file is left as it is", () =>
      Effect.gen(function*() {
        const id = yield* snapshotOf("src/gone.txt", "then")
        Fs.writeFileSync(at("src/gone.txt"), "now")
        Fs.rmSync(at(`.snapshots/${id}.snap`))
        const r = yield* call("restore_snapshot", { snapshot_id: id })
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toMatch(new RegExp(`^snapshot ${id} cannot be read: `))
        expect(r.error).not.toContain("nothing was restored")
        expect(Fs.readFileSync(at("src/gone.txt"), "utf8")).toBe("now")
      }))

    it.effect("a target that cannot be written (a file where its directory was) says nothing was restored", () =>
      Effect.gen(function*() {
        Fs.mkdirSync(at("src/dir"))
        const id = yield* snapshotOf("src/dir/f.txt", "then")
        Fs.rmSync(at("src/dir"), { recursive: true })
        Fs.writeFileSync(at("src/dir"), "a file in the way")
        const r = yield* call("restore_snapshot", { snapshot_id: id })
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toMatch(/; nothing was restored$/)
        expect(r.error).not.toContain("cannot be read")
        expect(Fs.readFileSync(at("src/dir"), "utf8")).toBe("a file in the way")
      }))
  })
})
