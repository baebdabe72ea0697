import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { AgentMode } from "../../../../src/index.js"
import { listSnapshots, restoreSnapshot, snapshotFile } from "../../../../src/tools/ported/managing/index.js"
import { LIST_PAGE } from "../../../../src/tools/ported/managing/listSnapshots.js"
import { call, makeWorkspace, systemFor, traversalOf, tree } from "../editing/harness.js"

const { outside, remove, ws } = makeWorkspace("snapshots-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)
const put = (rel: string, content: string | Uint8Array, mode?: number) => {
  Fs.mkdirSync(Path.dirname(at(rel)), { recursive: true })
  Fs.writeFileSync(at(rel), content)
  if (mode !== undefined) Fs.chmodSync(at(rel), mode)
}
const ID = /^Snapshot ([A-Za-z0-9_-]+) of /

/** Takes a snapshot and returns its id. */
const snapshot = (filepath: string) =>
  Effect.map(call("snapshot_file", { filepath }), (r) => {
    expect(r.success, r.error ?? "").toBe(true)
    const id = ID.exec(String(r.output))?.[1]
    expect(id).toBeDefined()
    return id ?? ""
  })

/** Writes a metadata file by hand (as anyone with a write tool could). */
const forge = (id: string, meta: Record<string, unknown>, content = "forged") => {
  Fs.mkdirSync(at(".snapshots"), { recursive: true })
  Fs.writeFileSync(at(`.snapshots/${id}.json`), JSON.stringify({ version: 1, id, created_at: "2020-01-01T00:00:00.000Z", mode: 420, size: Buffer.byteLength(content), ...meta }))
  Fs.writeFileSync(at(`.snapshots/${id}.snap`), content)
}

describe("snapshot_file, restore_snapshot, list_snapshots", () => {
  layer(systemFor(ws))((it) => {
    it.effect("flags: snapshot_file none (blocked in read-only modes), restore confirmed, list read-only", () =>
      Effect.gen(function*() {
        expect([snapshotFile.spec.readOnly, snapshotFile.scopedWrite, snapshotFile.requiresConfirmation]).toEqual([false, false, false])
        expect([restoreSnapshot.spec.readOnly, restoreSnapshot.requiresConfirmation]).toEqual([false, true])
        expect(listSnapshots.spec.readOnly).toBe(true)
        put("plans/p.md", "plan")
        const plan = yield* call("snapshot_file", { filepath: "plans/p.md" }, { mode: AgentMode.Plan })
        expect(plan.errorCode).toBe("MODE_BLOCKED")
        expect(Fs.existsSync(at(".snapshots"))).toBe(false)
      }))

    it.effect("a snapshot is restored byte for byte (binary too), after an edit and after a delete", () =>
      Effect.gen(function*() {
        const original = Buffer.from([0, 1, 2, 0xff, 10, 13, 10, 0xc3, 0xa9])
        put("src/data.bin", original, 0o640)
        const id = yield* snapshot("src/data.bin")
        expect(id).toMatch(/^\d{8}-\d{6}-[0-9a-f]{8}$/)
        expect(tree(at(".snapshots"))).toEqual([`${id}.json`, `${id}.snap`])
        Fs.writeFileSync(at("src/data.bin"), "changed")
        const unconfirmed = yield* call("restore_snapshot", { snapshot_id: id }, {})
        expect(unconfirmed.errorCode).toBe("CONFIRMATION_REQUIRED")
        const r = yield* call("restore_snapshot", { snapshot_id: id })
        expect(r.output).toBe(`Restored src/data.bin from snapshot ${id} taken at 1970-01-01T00:00:00.000Z (9 bytes)`)
        expect(Fs.readFileSync(at("src/data.bin"))).toEqual(original)
        Fs.rmSync(at("src/data.bin"))
        const again = yield* call("restore_snapshot", { snapshot_id: id })
        expect(again.output).toContain("(9 bytes, the file was re-created)")
        expect(Fs.readFileSync(at("src/data.bin"))).toEqual(original)
        expect(Fs.statSync(at("src/data.bin")).mode & 0o777).toBe(0o640)
      }))

    it.effect("list_snapshots lists ids, sources, times and sizes, newest first, filtered by file", () =>
      Effect.gen(function*() {
        put("src/l1.txt", "one")
        put("src/l2.txt", "two!")
        const a = yield* snapshot("src/l1.txt")
        const b = yield* snapshot("src/l2.txt")
        const all = String((yield* call("list_snapshots", {})).output).split("\n")
        expect(all[0]).toMatch(/^Snapshots, newest first \(1-\d+ of \d+\):$/)
        expect(all).toContain(`${a}  src/l1.txt  1970-01-01T00:00:00.000Z  3 bytes`)
        expect(all).toContain(`${b}  src/l2.txt  1970-01-01T00:00:00.000Z  4 bytes`)
        const one = yield* call("list_snapshots", { filepath: "src/l2.txt" })
        expect(one.output).toBe(`Snapshots of src/l2.txt, newest first (1-1 of 1):\n${b}  src/l2.txt  1970-01-01T00:00:00.000Z  4 bytes`)
        expect((yield* call("list_snapshots", { filepath: "src/never.txt" })).output).toBe("No snapshots of src/never.txt.")
      }))

    it.effect("missing, directory, outside: errors and defects; nothing is stored", () =>
      Effect.gen(function*() {
        const before = tree(at(".snapshots"))
        expect((yield* call("snapshot_file", { filepath: "src/none" })).error).toBe("\"src/none\" does not exist")
        expect((yield* call("snapshot_file", { filepath: "src" })).error).toBe("\"src\" is a directory, not a file")
        Fs.writeFileSync(Path.join(outside, "secret"), "s")
        const exit = yield* Effect.exit(call("snapshot_file", { filepath: "../outside/secret" }))
        expect(Option.isSome(traversalOf(exit))).toBe(true)
        expect(Option.isSome(traversalOf(yield* Effect.exit(call("list_snapshots", { filepath: "../outside/secret" }))))).toBe(true)
        expect(tree(at(".snapshots"))).toEqual(before)
      }))

    it.effect("ids are checked strictly: a crafted id naming a path is an argument error", () =>
      Effect.gen(function*() {
        for (const snapshot_id of ["../src/data", "a/b", "x.json", "", "a".repeat(65), "a b"]) {
          expect((yield* call("restore_snapshot", { snapshot_id })).errorCode, snapshot_id).toBe("INVALID_ARGUMENTS")
        }
        expect((yield* call("restore_snapshot", { snapshot_id: "nope" })).error).toBe(
          "there is no snapshot nope (list_snapshots lists the snapshots)"
        )
      }))

    it.effect("metadata that points out of the workspace is a PATH_TRAVERSAL defect; nothing is written outside", () =>
      Effect.gen(function*() {
        Fs.writeFileSync(Path.join(outside, "target"), "untouched")
        forge("evil1", { source: "../outside/target" })
        forge("evil2", { source: Path.join(outside, "target") })
        for (const snapshot_id of ["evil1", "evil2"]) {
          expect(Option.isSome(traversalOf(yield* Effect.exit(call("restore_snapshot", { snapshot_id }))))).toBe(true)
        }
        expect(Fs.readFileSync(Path.join(outside, "target"), "utf8")).toBe("untouched")
        Fs.rmSync(at(".snapshots/evil1.json"))
        Fs.rmSync(at(".snapshots/evil2.json"))
      }))

    it.effect("damaged metadata: restore refuses it, list counts it; a size mismatch is refused", () =>
      Effect.gen(function*() {
        put("src/victim.txt", "keep")
        Fs.writeFileSync(at(".snapshots/broken.json"), "{ not json")
        forge("other", { id: "someone-else", source: "src/victim.txt" })
        forge("short", { source: "src/victim.txt", size: 999 })
        expect((yield* call("restore_snapshot", { snapshot_id: "broken" })).error).toBe(
          "snapshot broken is damaged: its metadata is not valid"
        )
        expect((yield* call("restore_snapshot", { snapshot_id: "other" })).error).toBe(
          "snapshot other is damaged: its metadata names snapshot someone-else"
        )
        expect((yield* call("restore_snapshot", { snapshot_id: "short" })).error).toBe(
          "snapshot short is damaged: it holds 6 bytes, its metadata says 999"
        )
        expect(Fs.readFileSync(at("src/victim.txt"), "utf8")).toBe("keep")
        const listed = String((yield* call("list_snapshots", {})).output)
        expect(listed).toContain("(2 snapshots with damaged metadata skipped)")
        expect(listed).toContain("short  src/victim.txt")
        for (const id of ["broken", "other", "short"]) Fs.rmSync(at(`.snapshots/${id}.json`))
      }))

    it.effect("the listing is paged and says how to get the rest", () =>
      Effect.gen(function*() {
        for (let i = 0; i < LIST_PAGE + 5; i++) {
          forge(`paged-${String(i).padStart(3, "0")}`, {
            source: "src/paged.txt",
            created_at: `2021-01-01T00:00:${String(i % 60).padStart(2, "0")}.${String(i).padStart(3, "0")}Z`
          })
        }
        const first = String((yield* call("list_snapshots", { filepath: "src/paged.txt" })).output).split("\n")
        expect(first[0]).toBe(`Snapshots of src/paged.txt, newest first (1-${LIST_PAGE} of ${LIST_PAGE + 5}):`)
        expect(first).toHaveLength(LIST_PAGE + 2)
        expect(first.at(-1)).toBe(`... 5 older: call again with offset ${LIST_PAGE}`)
        const rest = String((yield* call("list_snapshots", { filepath: "src/paged.txt", offset: LIST_PAGE })).output).split("\n")
        expect(rest[0]).toBe(`Snapshots of src/paged.txt, newest first (${LIST_PAGE + 1}-${LIST_PAGE + 5} of ${LIST_PAGE + 5}):`)
        expect(rest).toHaveLength(6)
      }))

    it.effect("a .snapshots that is a symbolic link is refused, and nothing lands where it points", () =>
      Effect.gen(function*() {
        Fs.renameSync(at(".snapshots"), at("snapshots-aside"))
        Fs.mkdirSync(Path.join(outside, "store"))
        Fs.symlinkSync(Path.join(outside, "store"), at(".snapshots"))
        put("src/s.txt", "s")
        const r = yield* call("snapshot_file", { filepath: "src/s.txt" })
        expect(r.error).toBe(
          ".snapshots at the workspace root is a symbolic link, not a directory; snapshots are kept only in a real " +
            ".snapshots directory there (move it away to use snapshots)"
        )
        expect((yield* call("list_snapshots", {})).error).toBe(r.error)
        expect(tree(Path.join(outside, "store"))).toEqual([])
        Fs.rmSync(at(".snapshots"))
        Fs.renameSync(at("snapshots-aside"), at(".snapshots"))
      }))

    it.effect("no store yet: list_snapshots says so", () =>
      Effect.gen(function*() {
        Fs.renameSync(at(".snapshots"), at("snapshots-aside"))
        expect((yield* call("list_snapshots", {})).output).toBe("No snapshots.")
        Fs.renameSync(at("snapshots-aside"), at(".snapshots"))
      }))
  })
})
