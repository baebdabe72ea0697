import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { DIRECTORY_TREE_MAX_ENTRIES, directoryTree } from "../../../../src/tools/ported/reading/directoryTree.js"
import { call, makeWorkspace, outputOf, traversalOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("directory-tree-")
  const { write, ws } = fixture
  write("README.md", "r")
  write("src/index.ts", "i")
  write("src/lib/util.ts", "u")
  write("src/lib/deeper/x.ts", "x")
  write(".git/HEAD", "ref")
  write("node_modules/pkg/index.js", "p")
  write("empty/.keep", "")
  Fs.rmSync(Path.join(ws, "empty/.keep"))
  ChildProcess.execFileSync("mkfifo", [Path.join(ws, "fifo")])
})

afterAll(() => fixture.remove())

const tree = (args: Record<string, unknown>) => call(fixture.ws, "directory_tree", args)

describe("directory_tree", () => {
  it.effect("an indented tree, names sorted, .git and node_modules not listed, deeper levels marked", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* tree({}))).toBe([
        "./",
        "  .git/ (not listed)",
        "  README.md",
        "  empty/",
        "  fifo (not a regular file)",
        "  node_modules/ (not listed)",
        "  src/",
        "    index.ts",
        "    lib/",
        "      deeper/ …",
        "      util.ts",
        "6 directories, 3 files",
        "(\"…\": deeper than max_depth=3; raise max_depth or run directory_tree on that directory)"
      ].join("\n"))
    }))

  it.effect("max_depth and directory choose what is shown", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* tree({ max_depth: 1, directory: "src" }))).toBe([
        "src/",
        "  index.ts",
        "  lib/ …",
        "1 directory, 1 file",
        "(\"…\": deeper than max_depth=1; raise max_depth or run directory_tree on that directory)"
      ].join("\n"))
      expect(outputOf(yield* tree({ max_depth: 5, directory: "src/lib" }))).toBe(
        ["src/lib/", "  deeper/", "    x.ts", "  util.ts", "1 directory, 2 files"].join("\n")
      )
      expect(outputOf(yield* tree({ directory: "empty" }))).toBe("empty/\n0 directories, 0 files")
      expect((yield* tree({ max_depth: 0 })).errorCode).toBe("INVALID_ARGUMENTS")
      expect((yield* tree({ max_depth: 21 })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("a big tree stops at the entry cap, upper levels complete, and says how to see the rest", () =>
    Effect.gen(function*() {
      // 30 folders of 40 files: the top level (30) and part of the second level fit in the cap.
      // The files are hard links to one empty file outside the workspace: to the tree each is a
      // regular file, and a link costs no new inode (1200 new files cost 0.2-0.9 s of CPU here, for
      // the file system, and more than the whole walk)
      const empty = Path.join(fixture.base, "empty")
      Fs.writeFileSync(empty, "")
      for (let d = 0; d < 30; d++) {
        const dir = Path.join(fixture.ws, "big", `d${String(d).padStart(2, "0")}`)
        Fs.mkdirSync(dir, { recursive: true })
        for (let f = 0; f < 40; f++) Fs.linkSync(empty, Path.join(dir, `f${String(f).padStart(2, "0")}`))
      }
      const lines = outputOf(yield* tree({ directory: "big" })).split("\n")
      const entries = lines.filter((line) => line.startsWith("  "))
      expect(entries).toHaveLength(DIRECTORY_TREE_MAX_ENTRIES)
      // every folder is shown; the last ones reached only in part or not at all
      expect(lines.filter((line) => /^ {2}d\d\d\/( …)?$/.test(line))).toHaveLength(30)
      expect(lines).toContain("  d29/ …")
      expect(lines.at(-1)).toBe(
        `(the tree stops at ${DIRECTORY_TREE_MAX_ENTRIES} entries; for what is cut or marked "…", run directory_tree on a ` +
          "subdirectory, or lower max_depth)"
      )
      Fs.rmSync(Path.join(fixture.ws, "big"), { recursive: true })
    }))

  it.effect("a missing directory, a file, a directory leading out", () =>
    Effect.gen(function*() {
      expect((yield* tree({ directory: "nope" })).error).toBe("directory \"nope\" does not exist")
      expect((yield* tree({ directory: "README.md" })).error).toBe("\"README.md\" is a file, not a directory")
      expect((yield* tree({ directory: "fifo" })).error).toBe("\"fifo\" is a FIFO, not a directory")
      expect(Option.isSome(traversalOf(yield* Effect.exit(tree({ directory: "../outside" }))))).toBe(true)
    }))

  it.effect("is a read-only ported file tool", () =>
    Effect.sync(() => {
      expect(directoryTree.spec.readOnly).toBe(true)
      expect(directoryTree.tags).toEqual(["files", "ported"])
      expect(directoryTree.pathFields).toEqual(["directory"])
    }))
})
