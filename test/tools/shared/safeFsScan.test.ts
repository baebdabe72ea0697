/**
 * `scan` (`shared/safeFsScan.ts`), the streaming walk under `search_files`, `find_files` and
 * `directory_tree`, on a real tree: breadth first with entries in name order, links resolved
 * by the caller and followed once (a target the walk covers already is a repeat), links out
 * and dangling links reported, skipped names and the depth limit kept, a directory gone before
 * it is listed counted and passed over, and the visitor able to stop the walk.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Result, Option } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { isInside } from "../../../src/layers/Workspace.js"
import { scan, type ScanDirectory, type ScanEntry } from "../../../src/tools/shared/safeFsScan.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const ws = Fs.realpathSync(makeTempDirSync("safe-fs-scan-"))
const outside = Fs.realpathSync(makeTempDirSync("safe-fs-scan-out-"))
afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
  Fs.rmSync(outside, { recursive: true, force: true })
})
const at = (rel: string) => Path.join(ws, rel)
const start = at("start")

// files made out of name order: the listing's own order is not the walk's
for (const dir of ["start/sub/deep", "start/.git", "start/gone", "sibling/inner"]) Fs.mkdirSync(at(dir), { recursive: true })
for (const name of ["c.txt", "a.txt", "b.txt"]) Fs.writeFileSync(at(`start/${name}`), name)
Fs.writeFileSync(at("sibling/s.txt"), "s")
ChildProcess.execFileSync("mkfifo", [at("start/pipe")])
Fs.symlinkSync("../sibling", at("start/toSibling"))
Fs.symlinkSync("sub/deep", at("start/toDeep"))
Fs.symlinkSync("../sibling", at("start/node_modules"))
Fs.symlinkSync(outside, at("start/toOut"))
Fs.symlinkSync("missing", at("start/dangling"))
Fs.symlinkSync("../sibling/s.txt", at("start/toFile"))
Fs.symlinkSync("../sibling/s.txt", at("start/toFile2"))
Fs.symlinkSync("pipe", at("start/toPipe"))

interface Visit {
  readonly rel: string
  readonly depth: number
  readonly entries: ReadonlyArray<ScanEntry>
}

/** Walks `start`, resolving links inside `ws` only; records each visit and each link resolved. */
const walk = (options: {
  readonly maxDepth: number
  readonly visit?: (dir: ScanDirectory) => boolean
  readonly from?: string
}) =>
  Effect.gen(function*() {
    const visits: Array<Visit> = []
    const resolved: Array<string> = []
    const result = yield* scan(options.from ?? start, {
      maxDepth: options.maxDepth,
      skipNames: new Set([".git", "node_modules"]),
      resolveLink: (path) =>
        Effect.sync(() => {
          resolved.push(Path.relative(start, path))
          try {
            const real = Fs.realpathSync(path)
            return isInside(ws, real) ? Option.some(real) : Option.none()
          } catch {
            return Option.none()
          }
        }),
      visit: (dir, entries) =>
        Effect.sync(() => {
          visits.push({ rel: dir.rel, depth: dir.depth, entries: [...entries] })
          return options.visit?.(dir) ?? true
        })
    })
    return { result, visits, resolved }
  })

describe.skipIf(process.platform !== "linux")("scan", () => {
  it.effect("walks breadth first in name order, following each link inside once", () =>
    Effect.gen(function*() {
      const { resolved, result, visits } = yield* walk({ maxDepth: 3 })
      expect(result).toEqual({ stopped: false, unreadable: 0, linksOut: 2 })
      expect(visits.map((v) => [v.rel, v.depth])).toEqual([
        ["", 0],
        ["gone", 1],
        ["sub", 1],
        ["toSibling", 1],
        ["sub/deep", 2],
        ["toSibling/inner", 2]
      ])
      expect(visits[0]?.entries).toEqual([
        { _tag: "Directory", name: ".git", expanded: "skipped" },
        { _tag: "File", name: "a.txt", repeat: false },
        { _tag: "File", name: "b.txt", repeat: false },
        { _tag: "File", name: "c.txt", repeat: false },
        { _tag: "LinkOut", name: "dangling" },
        { _tag: "Directory", name: "gone", expanded: "listed" },
        // a link whose name is skipped is not followed, whatever it leads to
        { _tag: "Directory", name: "node_modules", target: at("sibling"), expanded: "skipped" },
        { _tag: "Other", name: "pipe" },
        { _tag: "Directory", name: "sub", expanded: "listed" },
        // inside the start's tree: walked there, not through the link
        { _tag: "Directory", name: "toDeep", target: at("start/sub/deep"), expanded: "repeat" },
        { _tag: "File", name: "toFile", target: at("sibling/s.txt"), repeat: false },
        // the same file through a second link: not to be read again
        { _tag: "File", name: "toFile2", target: at("sibling/s.txt"), repeat: true },
        { _tag: "LinkOut", name: "toOut" },
        { _tag: "Other", name: "toPipe" },
        { _tag: "Directory", name: "toSibling", target: at("sibling"), expanded: "listed" }
      ])
      expect(visits[3]?.entries).toEqual([
        { _tag: "Directory", name: "inner", expanded: "listed" },
        { _tag: "File", name: "s.txt", repeat: false }
      ])
      // only links are resolved
      expect(resolved).toEqual(["dangling", "node_modules", "toDeep", "toFile", "toFile2", "toOut", "toPipe", "toSibling"])
    }))

  it.effect("does not list a directory at the depth limit, met directly or through a link", () =>
    Effect.gen(function*() {
      const { visits } = yield* walk({ maxDepth: 1 })
      expect(visits.map((v) => v.rel)).toEqual([""])
      const byName = new Map(visits[0]?.entries.map((entry) => [entry.name, entry]))
      expect(byName.get("sub")).toEqual({ _tag: "Directory", name: "sub", expanded: "depth" })
      expect(byName.get("toSibling")).toEqual({ _tag: "Directory", name: "toSibling", target: at("sibling"), expanded: "depth" })
      expect(byName.get(".git")).toEqual({ _tag: "Directory", name: ".git", expanded: "skipped" })
    }))

  it.effect("counts a directory gone before it is listed and goes on; the visitor can stop the walk", () =>
    Effect.gen(function*() {
      const other = at("other")
      for (const dir of ["a/x", "gone", "z"]) Fs.mkdirSync(Path.join(other, dir), { recursive: true })
      // the listing comes in byte order (UTF-8); the walk's order is that of JavaScript's strings
      // (UTF-16 code units), where a character beyond U+FFFF comes before U+FF01
      for (const name of ["\uFF01", "\u{1F600}"]) Fs.writeFileSync(Path.join(other, name), "")
      const removed = yield* walk({
        from: other,
        maxDepth: 3,
        visit: (dir) => {
          if (dir.rel === "") Fs.rmdirSync(Path.join(other, "gone"))
          return true
        }
      })
      expect(removed.result).toEqual({ stopped: false, unreadable: 1, linksOut: 0 })
      expect(removed.visits.map((v) => v.rel)).toEqual(["", "a", "z", "a/x"])
      expect(removed.visits[0]?.entries.map((entry) => entry.name)).toEqual(["a", "gone", "z", "\u{1F600}", "\uFF01"])

      const stopped = yield* walk({ maxDepth: 3, visit: (dir) => dir.rel !== "sub" })
      expect(stopped.result).toEqual({ stopped: true, unreadable: 0, linksOut: 2 })
      expect(stopped.visits.map((v) => v.rel)).toEqual(["", "gone", "sub"])
    }))

  it.effect("a link under a skipped name is reported skipped, even when its target lies in the tree walked", () =>
    Effect.gen(function*() {
      const tree = at("skip-link")
      Fs.mkdirSync(Path.join(tree, "sub"), { recursive: true })
      Fs.symlinkSync("sub", Path.join(tree, "node_modules"))
      const { visits } = yield* walk({ from: tree, maxDepth: 3 })
      expect(visits.map((v) => v.rel)).toEqual(["", "sub"])
      expect(visits[0]?.entries).toEqual([
        { _tag: "Directory", name: "node_modules", target: Path.join(tree, "sub"), expanded: "skipped" },
        { _tag: "Directory", name: "sub", expanded: "listed" }
      ])
    }))

  it.effect("fails when the start itself cannot be opened", () =>
    Effect.gen(function*() {
      const failure = yield* Effect.result(walk({ maxDepth: 3, from: at("nowhere") }))
      expect(Result.isFailure(failure) && [failure.failure.reason, failure.failure.message])
        .toEqual(["NotFound", `"${at("nowhere")}" does not exist`])
    }))
})
