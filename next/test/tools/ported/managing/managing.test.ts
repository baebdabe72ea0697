import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { AgentMode } from "../../../../src/index.js"
import { createDirectory, deleteFile } from "../../../../src/tools/ported/managing/index.js"
import { call, fingerprint, makeWorkspace, systemFor, traversalOf, tree } from "../editing/harness.js"

const { outside, remove, ws } = makeWorkspace("managing-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)
const put = (rel: string, content: string | Uint8Array) => {
  Fs.mkdirSync(Path.dirname(at(rel)), { recursive: true })
  Fs.writeFileSync(at(rel), content)
}

describe("create_directory", () => {
  layer(systemFor(ws))((it) => {
    it.effect("has no flags: not read-only, not a scoped write, no confirmation", () =>
      Effect.sync(() => {
        expect([createDirectory.spec.readOnly, createDirectory.scopedWrite, createDirectory.requiresConfirmation]).toEqual([
          false,
          false,
          false
        ])
      }))

    it.effect("creates nested directories; an existing one is fine", () =>
      Effect.gen(function*() {
        expect((yield* call("create_directory", { dirpath: "a/b/c" })).output).toBe("Created directory a/b/c")
        expect(Fs.statSync(at("a/b/c")).isDirectory()).toBe(true)
        expect((yield* call("create_directory", { dirpath: "a/b" })).output).toBe("Directory a/b already exists")
        expect((yield* call("create_directory", { dirpath: "ünï/😀" })).output).toBe("Created directory ünï/😀")
      }))

    it.effect("a file in the way is an error; outside is a defect; read-only modes block it", () =>
      Effect.gen(function*() {
        put("file.txt", "f")
        expect((yield* call("create_directory", { dirpath: "file.txt" })).error).toBe(
          "cannot create the directory file.txt: a file is in the way (\"file.txt\" is not a directory)"
        )
        expect((yield* call("create_directory", { dirpath: "file.txt/sub" })).error).toBe(
          "cannot create the directory file.txt/sub: a file is in the way (\"file.txt/sub\" is not a directory)"
        )
        expect(Option.isSome(traversalOf(yield* Effect.exit(call("create_directory", { dirpath: "../outside/made" }))))).toBe(true)
        expect(tree(outside)).toEqual([])
        const plan = yield* call("create_directory", { dirpath: "plans/sub" }, { mode: AgentMode.Plan })
        expect(plan.errorCode).toBe("MODE_BLOCKED")
        expect(Fs.existsSync(at("plans/sub"))).toBe(false)
      }))

    it.effect("a name the file system refuses is its error as is, not a file in the way", () =>
      Effect.gen(function*() {
        const long = "n".repeat(300)
        const r = yield* call("create_directory", { dirpath: `made/${long}` })
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toBe(`cannot open "made/${long}": ENAMETOOLONG`)
        expect(tree(at("made"))).toEqual([])
      }))
  })
})

describe("delete_file", () => {
  layer(systemFor(ws))((it) => {
    it.effect("needs confirmation, then deletes a file", () =>
      Effect.gen(function*() {
        expect(deleteFile.requiresConfirmation).toBe(true)
        put("src/del.txt", "bye")
        const unconfirmed = yield* call("delete_file", { filepath: "src/del.txt" }, {})
        expect(unconfirmed.errorCode).toBe("CONFIRMATION_REQUIRED")
        expect(Fs.existsSync(at("src/del.txt"))).toBe(true)
        expect((yield* call("delete_file", { filepath: "src/del.txt" })).output).toBe("Deleted src/del.txt (3 bytes)")
        expect(Fs.existsSync(at("src/del.txt"))).toBe(false)
      }))

    it.effect("a directory, the root, a missing file: errors, nothing deleted", () =>
      Effect.gen(function*() {
        put("src/keep/k.txt", "k")
        expect((yield* call("delete_file", { filepath: "src/keep" })).error).toBe("src/keep is a directory; delete_file deletes files only")
        expect((yield* call("delete_file", { filepath: "." })).error).toBe(
          "the workspace root is a directory; delete_file deletes files only"
        )
        expect((yield* call("delete_file", { filepath: "src/none.txt" })).error).toBe(
          "\"src/none.txt\" does not exist; nothing was deleted"
        )
        expect(tree(at("src/keep"))).toEqual(["k.txt"])
      }))

    it.effect("a path leading out of the workspace (also through a link) is a defect; the outside file stays", () =>
      Effect.gen(function*() {
        Fs.writeFileSync(Path.join(outside, "precious"), "p")
        Fs.symlinkSync(Path.join(outside, "precious"), at("src/link-out"))
        for (const filepath of ["../outside/precious", "src/link-out"]) {
          expect(Option.isSome(traversalOf(yield* Effect.exit(call("delete_file", { filepath })))), filepath).toBe(true)
        }
        expect(Fs.readFileSync(Path.join(outside, "precious"), "utf8")).toBe("p")
      }))

    it.effect("blocked in plan mode even under plans/ (not a scoped write)", () =>
      Effect.gen(function*() {
        put("plans/p.md", "p")
        const before = fingerprint(at("plans/p.md"))
        expect((yield* call("delete_file", { filepath: "plans/p.md" }, { mode: AgentMode.Plan, confirm: true })).errorCode).toBe(
          "MODE_BLOCKED"
        )
        expect(fingerprint(at("plans/p.md"))).toEqual(before)
      }))
  })
})
