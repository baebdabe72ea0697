/**
 * `.git` is protected: no tool with side effects writes, creates, moves, copies, deletes,
 * downloads or restores under a `.git` of the workspace (the root's or a nested one's, spelled
 * in any case, reached through a symbolic link or a dangling one). Each call is refused with
 * `PROTECTED_PATH` and nothing under `.git` changes; read-only tools still read there, and
 * `explain` says the same as `execute`.
 */
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../src/index.js"
import { builtinTools } from "../../src/tools/builtin/index.js"
import { editingTools } from "../../src/tools/ported/editing/index.js"
import { managingTools } from "../../src/tools/ported/managing/index.js"
import { webTools } from "../../src/tools/ported/web/index.js"
import { call, makeWorkspace } from "../tools/ported/editing/harness.js"

const { remove, ws } = makeWorkspace("protected-git-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)
const put = (rel: string, content: string) => {
  Fs.mkdirSync(Path.dirname(at(rel)), { recursive: true })
  Fs.writeFileSync(at(rel), content)
}
put(".git/config", "[core]\n\tbare = false\n")
put(".git/hooks/README", "hooks\n")
put("sub/.git/config", "[core]\n")
put(".GIT/x", "x\n")
put("a.txt", "a\n")
// a link to the git directory, and a dangling one to a hook not yet there
Fs.symlinkSync(".git", at("gitlink"))
Fs.symlinkSync(".git/hooks/post-checkout", at("hooklink"))

/** Every path below the protected directories with a digest of its content. */
const state = (): ReadonlyArray<string> =>
  [".git", "sub/.git", ".GIT"].flatMap((dir) =>
    Fs.readdirSync(at(dir), { recursive: true, encoding: "utf8" }).sort().map((rel) => {
      const file = Path.join(at(dir), rel)
      const stats = Fs.lstatSync(file)
      return stats.isFile() ? `${dir}/${rel} ${Crypto.createHash("sha256").update(Fs.readFileSync(file)).digest("hex")}` : `${dir}/${rel}`
    })
  )

const TARGETS = [".git/hooks/pre-commit", ".git/config", "sub/.git", ".GIT/x", "gitlink/hooks/pre-commit", "gitlink/config", "hooklink"]

/** Each write tool at `target`; moves and copies both ways. */
const callsAt = (target: string): ReadonlyArray<readonly [string, Record<string, unknown>]> => [
  ["write_file", { filepath: target, content: "#!/bin/sh\ntouch /tmp/pwned\n" }],
  ["append_to_file", { filepath: target, content: "\n[core]\n\tfsmonitor = /tmp/evil\n" }],
  ["replace_in_file", { filepath: target, old_text: "bare", new_text: "evil" }],
  ["apply_diff", { filepath: target, diff: "--- a\n+++ b\n@@ -1 +1 @@\n-[core]\n+[evil]\n" }],
  ["insert_lines", { filepath: target, line_number: 1, content: "x" }],
  ["edit_file_line", { filepath: target, line_number: 1, new_content: "x" }],
  ["remove_line_range", { filepath: target, start_line: 1, end_line: 1 }],
  ["copy_file", { source: "a.txt", destination: target, overwrite: true }],
  ["copy_file", { source: target, destination: "copied.txt" }],
  ["move_file", { source: "a.txt", destination: target, overwrite: true }],
  ["move_file", { source: target, destination: "moved.txt" }],
  ["create_directory", { dirpath: target }],
  ["delete_file", { filepath: target }],
  ["snapshot_file", { filepath: target }],
  // refused at the paths step: no request is made
  ["download_file", { url: "http://127.0.0.1:9/hook", filepath: target }]
]

const system = ToolSystem.layerNode({
  builtins: false,
  tools: [...builtinTools, ...editingTools, ...managingTools, ...webTools],
  workspace: Workspace.layerFixed(ws)
})

describe("tools with side effects never change .git", () => {
  layer(system)((it) => {
    it.effect("every write tool, at every spelling of a .git path, is refused with PROTECTED_PATH", () =>
      Effect.gen(function*() {
        const before = state()
        for (const target of TARGETS) {
          for (const [name, args] of callsAt(target)) {
            const result = yield* call(name, args)
            expect(result.errorCode, `${name} ${JSON.stringify(args)}: ${result.error}`).toBe("PROTECTED_PATH")
            expect(result.error).toMatch(/\.git/i)
          }
        }
        expect(state()).toEqual(before)
        expect(Fs.readFileSync(at("a.txt"), "utf8")).toBe("a\n")
        expect(Fs.existsSync(at("copied.txt")) || Fs.existsSync(at("moved.txt")) || Fs.existsSync(at(".snapshots"))).toBe(false)
      }))

    it.effect("read-only tools still read under .git; a name that only looks like it is writable", () =>
      Effect.gen(function*() {
        const read = yield* call("read_file", { filepath: ".git/config" })
        expect(read.output).toMatch(/bare = false/)
        expect((yield* call("read_file", { filepath: "gitlink/config" })).success).toBe(true)
        const written = yield* call("write_file", { filepath: "notes/.gitignore", content: "x\n" })
        expect(written.success, written.error ?? "").toBe(true)
        expect((yield* call("write_file", { filepath: "my.git/x", content: "x\n" })).success).toBe(true)
      }))

    it.effect("restore_snapshot whose metadata names a path under .git restores nothing", () =>
      Effect.gen(function*() {
        const before = state()
        const id = "forged-hook"
        put(`.snapshots/${id}.snap`, "#!/bin/sh\n")
        put(
          `.snapshots/${id}.json`,
          JSON.stringify({ version: 1, id, source: ".git/hooks/pre-commit", created_at: "2020-01-01T00:00:00.000Z", size: 10, mode: 0o755 })
        )
        const result = yield* call("restore_snapshot", { snapshot_id: id })
        expect(result.success).toBe(false)
        // the handler's own refusal keeps its code, as the same path given as an argument would
        expect(result.errorCode).toBe("PROTECTED_PATH")
        expect(result.error).toMatch(/under \.git/)
        expect(state()).toEqual(before)
      }))

    it.effect("explain says what execute does", () =>
      Effect.gen(function*() {
        const tools = yield* ToolSystem
        const why = yield* tools.explain("write_file", { filepath: "gitlink/hooks/pre-commit", content: "x" }, { confirm: true })
        expect(why).toMatchObject({ wouldRun: false, errorCode: "PROTECTED_PATH" })
        expect(why.gates.find((g) => g.gate === "paths")).toMatchObject({ outcome: "fail", code: "PROTECTED_PATH" })
        expect((yield* tools.explain("read_file", { filepath: ".git/config" })).wouldRun).toBe(true)
      }))
  })
})
