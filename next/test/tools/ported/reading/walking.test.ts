import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { call, makeWorkspace, outputOf } from "./harness.js"

/**
 * The walking tools (search_files, find_files, directory_tree) and symbolic links: a link that
 * stays inside the workspace is followed once, one that leads out (or nowhere) is counted and
 * never opened, and a cycle ends.
 */
let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("walking-")
  const { outside, write, ws } = fixture
  write("src/a.ts", "needle a\n")
  write("shared/lib/b.ts", "needle b\n")
  write("top.txt", "needle top\n")
  Fs.mkdirSync(Path.join(outside, "dir"))
  Fs.writeFileSync(Path.join(outside, "secret.txt"), "needle secret\n")
  Fs.writeFileSync(Path.join(outside, "dir", "deeper.ts"), "needle deeper secret\n")
  const link = (target: string, at: string) => Fs.symlinkSync(target, Path.join(ws, at))
  link("../shared/lib", "src/linked") // inside the workspace, outside the walked directory
  link("..", "src/up") // the walked directory's parent: a cycle back to it
  link(".", "src/self") // itself
  link(Path.join(outside, "dir"), "src/out") // out, absolute
  link("../../outside/secret.txt", "src/outfile") // out, relative, a file
  link("nowhere", "src/dangling")
  link("a.ts", "src/alias.ts") // a file met anyway
  link("../shared/lib/b.ts", "src/shared-b.ts") // a file met through `linked`
  Fs.mkdirSync(Path.join(ws, "loop"))
  link("b", "loop/a") // a loop of links
  link("a", "loop/b")
})

afterAll(() => fixture.remove())

const run = (name: string, args: Record<string, unknown>) => call(fixture.ws, name, args)
const LINKS_NOTE = "(5 symbolic links not followed: they lead out of the workspace or to nothing)"

describe("walking tools and symbolic links", () => {
  it.effect("search_files follows links inside once, never reads through one leading out", () =>
    Effect.gen(function*() {
      const inSrc = outputOf(yield* run("search_files", { pattern: "needle", directory: "src" }))
      expect(inSrc).toBe([
        "src/a.ts:1: needle a",
        "src/linked/b.ts:1: needle b",
        "src/up/top.txt:1: needle top",
        LINKS_NOTE
      ].join("\n"))
      const all = outputOf(yield* run("search_files", { pattern: "needle" }))
      expect(all).toBe(["top.txt:1: needle top", "src/a.ts:1: needle a", "shared/lib/b.ts:1: needle b", LINKS_NOTE].join("\n"))
      expect(all + inSrc).not.toContain("secret")
    }))

  it.effect("find_files lists links under their names, walks each real directory once", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* run("find_files", { name_pattern: "*", directory: "src" }))).toBe([
        "src/a.ts",
        "src/alias.ts",
        "src/linked/",
        "src/self/",
        "src/shared-b.ts",
        "src/up/",
        "src/linked/b.ts",
        "src/up/loop/",
        "src/up/shared/",
        "src/up/src/",
        "src/up/top.txt",
        "src/up/shared/lib/",
        LINKS_NOTE
      ].join("\n"))
      const deep = outputOf(yield* run("find_files", { name_pattern: "deeper*" }))
      expect(deep).toBe(`No files or directories named "deeper*" in the workspace.\n${LINKS_NOTE}`)
    }))

  it.effect("directory_tree shows where links lead and what is listed elsewhere", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* run("directory_tree", {}))).toBe([
        "./",
        "  loop/",
        "    a -> (outside the workspace, or missing; not followed)",
        "    b -> (outside the workspace, or missing; not followed)",
        "  shared/",
        "    lib/",
        "      b.ts",
        "  src/",
        "    a.ts",
        "    alias.ts -> src/a.ts",
        "    dangling -> (outside the workspace, or missing; not followed)",
        "    linked/ -> shared/lib/ (not expanded: it is elsewhere in this tree)",
        "    out -> (outside the workspace, or missing; not followed)",
        "    outfile -> (outside the workspace, or missing; not followed)",
        "    self/ -> src/ (not expanded: it is elsewhere in this tree)",
        "    shared-b.ts -> shared/lib/b.ts",
        "    up/ -> ./ (not expanded: it is elsewhere in this tree)",
        "  top.txt",
        "7 directories, 5 files",
        LINKS_NOTE
      ].join("\n"))
      const src = outputOf(yield* run("directory_tree", { directory: "src", max_depth: 2 }))
      expect(src).toContain("  linked/ -> shared/lib/\n    b.ts\n")
      expect(src).toContain("  up/ -> ./\n    loop/ …\n    shared/ …\n    src/ (not expanded: it is elsewhere in this tree)\n    top.txt\n")
    }))

  it.effect("a directory argument that is a link inside the workspace is walked at its real place", () =>
    Effect.gen(function*() {
      expect(outputOf(yield* run("search_files", { pattern: "needle", directory: "src/linked" }))).toBe(
        "shared/lib/b.ts:1: needle b"
      )
    }))
})
