/**
 * A directory swapped for a symbolic link between the workspace check and the use: a policy
 * hook (it runs after the executor resolved the paths, before the handler) makes the swap, so
 * each case is deterministic and cheap. The tools must refuse, with nothing read, moved,
 * deleted or written outside the workspace.
 */
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolPolicy, ToolSystem, Workspace } from "../../../../src/index.js"
import { editingTools } from "../../../../src/tools/ported/editing/index.js"
import { managingTools } from "../../../../src/tools/ported/managing/index.js"
import { call, makeWorkspace, text, tree } from "./harness.js"

const { outside, remove, ws } = makeWorkspace("swaps-")
afterAll(remove)

/** What the hook does on the next call (once). */
let nextSwap: (() => void) | undefined

const policy = ToolPolicy.layer(() =>
  Effect.sync(() => {
    const swap = nextSwap
    nextSwap = undefined
    swap?.()
    return Option.none<string>()
  })
)

const system = ToolSystem.layerNode({
  builtins: false,
  tools: [...editingTools, ...managingTools],
  workspace: Workspace.layerFixed(ws),
  policy
})

/**
 * Prepares `ws/<dir>` with `files` and `outside/<dir>` with the same names (other content), and
 * arms the hook to swap `ws/<dir>` for a link to `outside/<dir>`.
 */
const armSwap = (dir: string, files: ReadonlyArray<string>) => {
  Fs.mkdirSync(Path.join(ws, dir), { recursive: true })
  Fs.mkdirSync(Path.join(outside, dir), { recursive: true })
  for (const f of files) {
    Fs.writeFileSync(Path.join(ws, dir, f), "inside\n")
    Fs.writeFileSync(Path.join(outside, dir, f), "outside\n")
  }
  nextSwap = () => {
    Fs.renameSync(Path.join(ws, dir), Path.join(ws, `${dir}.aside`))
    Fs.symlinkSync(Path.join(outside, dir), Path.join(ws, dir))
  }
}

/** The outside copy of `dir` is as it was made: same names, untouched content. */
const outsideIntact = (dir: string, files: ReadonlyArray<string>) => {
  expect(tree(Path.join(outside, dir))).toEqual([...files].sort())
  for (const f of files) expect(text(Path.join(outside, dir, f))).toBe("outside\n")
}

describe("a directory swapped for a link after the check", () => {
  layer(system)((it) => {
    it.effect("the editing tools read and write nothing through it", () =>
      Effect.gen(function*() {
        const cases = [
          ["append_to_file", { content: "x" }],
          ["insert_lines", { line_number: 1, content: "x" }],
          ["replace_in_file", { old_text: "side", new_text: "x" }],
          ["apply_diff", { diff: "@@ -1 +1 @@\n-outside\n+x\n" }],
          ["edit_file_line", { line_number: 1, new_content: "x" }],
          ["remove_line_range", { start_line: 1, end_line: 1 }]
        ] as const
        for (const [name, args] of cases) {
          const dir = `e-${name}`
          armSwap(dir, ["f.txt"])
          const r = yield* call(name, { filepath: `${dir}/f.txt`, ...args })
          expect(r.success, name).toBe(false)
          expect(r.error, name).toContain("changed while")
          outsideIntact(dir, ["f.txt"])
        }
      }))

    it.effect("move_file moves nothing out of, or into, a swapped directory", () =>
      Effect.gen(function*() {
        armSwap("m-src", ["f.txt"])
        const a = yield* call("move_file", { source: "m-src/f.txt", destination: "moved.txt" })
        expect(a.error).toContain("changed while")
        expect(Fs.existsSync(Path.join(ws, "moved.txt"))).toBe(false)
        outsideIntact("m-src", ["f.txt"])

        Fs.writeFileSync(Path.join(ws, "mine.txt"), "mine")
        armSwap("m-dst", [])
        const b = yield* call("move_file", { source: "mine.txt", destination: "m-dst/mine.txt" })
        expect(b.error).toContain("changed while")
        expect(text(Path.join(ws, "mine.txt"))).toBe("mine")
        outsideIntact("m-dst", [])
      }))

    it.effect("copy_file copies nothing out of, or into, a swapped directory", () =>
      Effect.gen(function*() {
        armSwap("c-src", ["f.txt"])
        const a = yield* call("copy_file", { source: "c-src/f.txt", destination: "copied.txt" })
        expect(a.error).toContain("changed while")
        expect(Fs.existsSync(Path.join(ws, "copied.txt"))).toBe(false)

        Fs.writeFileSync(Path.join(ws, "c.txt"), "c")
        armSwap("c-dst", [])
        const b = yield* call("copy_file", { source: "c.txt", destination: "c-dst/c.txt" })
        expect(b.error).toContain("changed while")
        outsideIntact("c-dst", [])
      }))

    it.effect("delete_file, snapshot_file and create_directory act on nothing outside", () =>
      Effect.gen(function*() {
        armSwap("d", ["f.txt"])
        expect((yield* call("delete_file", { filepath: "d/f.txt" })).error).toContain("changed while")
        outsideIntact("d", ["f.txt"])

        armSwap("s", ["f.txt"])
        expect((yield* call("snapshot_file", { filepath: "s/f.txt" })).error).toContain("changed while")
        expect(Fs.existsSync(Path.join(ws, ".snapshots")) ? tree(Path.join(ws, ".snapshots")) : []).toEqual([])

        armSwap("k", [])
        expect((yield* call("create_directory", { dirpath: "k/sub" })).error).toContain("changed while")
        outsideIntact("k", [])
      }))
  })
})
