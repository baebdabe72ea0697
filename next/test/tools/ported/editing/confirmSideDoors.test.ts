/**
 * Confirmation side doors (issue 47, item 5): a tool that is not `requiresConfirmation` but can
 * have the effect of one that is asks for confirmation in that call, as it is about to act:
 * `append_to_file` creating a file, `move_file` / `copy_file` replacing one or putting an
 * executable file in place. Unconfirmed, the call ends as the gate ends one
 * (`CONFIRMATION_REQUIRED`, `confirmed: false`) and nothing changes, even when the destination
 * appears between the tool's look and its write (`onceAfter` plays the other process).
 */
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { onceAfter } from "../../../helpers/fsCalls.js"
import { call, fingerprint, makeWorkspace, systemFor, text, tree } from "./harness.js"

const { remove, ws } = makeWorkspace("side-doors-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)
const put = (rel: string, content: string, mode?: number) => {
  Fs.mkdirSync(Path.dirname(at(rel)), { recursive: true })
  Fs.writeFileSync(at(rel), content)
  if (mode !== undefined) Fs.chmodSync(at(rel), mode)
}
const unconfirmed = { confirm: false } as const

/** What the confirmation gate answers an unconfirmed call, with the tool's reason. */
const refusal = (tool: string, reason: string) => ({
  success: false,
  errorCode: "CONFIRMATION_REQUIRED",
  confirmed: false,
  tool,
  error: `Confirmation required: ${reason}`
})

describe("confirmation side doors", () => {
  layer(systemFor(ws))((it) => {
    it.effect("append_to_file: creating a missing file needs confirmation; appending to one does not", () =>
      Effect.gen(function*() {
        const before = tree(ws)
        const refused = yield* call("append_to_file", { filepath: "src/new/a.txt", content: "x\n" }, unconfirmed)
        expect(refused).toMatchObject(refusal("append_to_file", "would create src/new/a.txt"))
        expect(tree(ws)).toEqual(before)
        const created = yield* call("append_to_file", { filepath: "src/new/a.txt", content: "x\n" })
        expect(created).toMatchObject({ success: true, output: "Created src/new/a.txt with 2 bytes" })
        const appended = yield* call("append_to_file", { filepath: "src/new/a.txt", content: "y" }, unconfirmed)
        expect(appended.success).toBe(true)
        expect(text(at("src/new/a.txt"))).toBe("x\ny\n")
      }))

    it.effect("append_to_file: a file that appears between the look and the create is appended to, not clobbered", () =>
      Effect.scoped(Effect.gen(function*() {
        const ran = yield* onceAfter("open", "raced.txt", () => put("src/raced.txt", "theirs"))
        const r = yield* call("append_to_file", { filepath: "src/raced.txt", content: "mine" })
        expect(ran()).toBe(1)
        // found there by the no-replace create: appended to, as any existing file
        expect(r).toMatchObject({ success: true, output: "Appended 1 line to src/raced.txt (now 2 lines)" })
        expect(text(at("src/raced.txt"))).toBe("theirs\nmine")
      })))

    it.effect("move_file and copy_file: overwrite onto an existing file needs confirmation", () =>
      Effect.gen(function*() {
        for (const tool of ["move_file", "copy_file"] as const) {
          put("src/from.txt", "FROM")
          put("src/to.txt", "TO")
          const [from, to] = [fingerprint(at("src/from.txt")), fingerprint(at("src/to.txt"))]
          const args = { source: "src/from.txt", destination: "src/to.txt", overwrite: true }
          const refused = yield* call(tool, args, unconfirmed)
          expect(refused).toMatchObject(refusal(tool, "would overwrite src/to.txt"))
          expect([fingerprint(at("src/from.txt")), fingerprint(at("src/to.txt"))]).toEqual([from, to])
          const done = yield* call(tool, args)
          expect(done.success).toBe(true)
          expect(text(at("src/to.txt"))).toBe("FROM")
        }
      }))

    it.effect("move_file and copy_file: a new destination needs none; an executable file does, and nothing is made", () =>
      Effect.gen(function*() {
        put("src/plain.txt", "plain")
        const copied = yield* call("copy_file", { source: "src/plain.txt", destination: "src/plain2.txt", overwrite: true }, unconfirmed)
        expect(copied.success).toBe(true)
        const moved = yield* call("move_file", { source: "src/plain2.txt", destination: "src/plain3.txt" }, unconfirmed)
        expect(moved.success).toBe(true)

        put("src/tool.sh", "#!/bin/sh\necho hi\n", 0o755)
        const before = fingerprint(at("src/tool.sh"))
        const copy = yield* call("copy_file", { source: "src/tool.sh", destination: "bin/hook" }, unconfirmed)
        expect(copy).toMatchObject(refusal("copy_file", "would copy an executable file to bin/hook"))
        const move = yield* call("move_file", { source: "src/tool.sh", destination: "bin/hook" }, unconfirmed)
        expect(move).toMatchObject(refusal("move_file", "would move an executable file to bin/hook"))
        expect(Fs.existsSync(at("bin"))).toBe(false)
        expect(fingerprint(at("src/tool.sh"))).toEqual(before)

        expect((yield* call("copy_file", { source: "src/tool.sh", destination: "bin/hook" })).success).toBe(true)
        expect(Fs.statSync(at("bin/hook")).mode & 0o777).toBe(0o755)
        expect((yield* call("move_file", { source: "src/tool.sh", destination: "bin/hook2" })).success).toBe(true)
        expect(Fs.existsSync(at("src/tool.sh"))).toBe(false)
      }))

    it.effect("copy_file: a destination that appears just before the copy is put in place is not replaced", () =>
      Effect.scoped(Effect.gen(function*() {
        put("src/c-src.txt", "SRC")
        // the copy's bytes are complete in their temp file (its rename done): now the other process writes
        const ran = yield* onceAfter("rename", /^\.c-dst\.txt\.[0-9a-f]+\.tmp$/, () => put("src/c-dst.txt", "theirs"))
        const args = { source: "src/c-src.txt", destination: "src/c-dst.txt", overwrite: true }
        const r = yield* call("copy_file", args, unconfirmed)
        expect(ran()).toBe(1)
        expect(r).toMatchObject(refusal("copy_file", "would overwrite src/c-dst.txt"))
        expect(text(at("src/c-dst.txt"))).toBe("theirs")
        expect(tree(at("src")).filter((name) => name.endsWith(".tmp"))).toEqual([])
      })))

    it.effect("move_file: a destination that appears once the move has begun is not replaced", () =>
      Effect.scoped(Effect.gen(function*() {
        put("src/m-src.txt", "SRC")
        Fs.mkdirSync(at("dst"), { recursive: true })
        // the destination's directory is opened by the move itself: the other process writes then
        const ran = yield* onceAfter("open", "dst", () => put("dst/m-dst.txt", "theirs"))
        const r = yield* call("move_file", { source: "src/m-src.txt", destination: "dst/m-dst.txt", overwrite: true }, unconfirmed)
        expect(ran()).toBe(1)
        expect(r).toMatchObject(refusal("move_file", "would overwrite dst/m-dst.txt"))
        expect(text(at("dst/m-dst.txt"))).toBe("theirs")
        expect(text(at("src/m-src.txt"))).toBe("SRC")
      })))
  })
})
