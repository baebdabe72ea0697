/**
 * The workspace resolver at its edges, against real temp directories: roots that do not exist
 * yet (also below a symlinked parent, or as a dangling symlink), dangling symlinks whose
 * targets hold `.`, `//` and `..` past a missing name, the symlink hop limit, the path length
 * limit, `tryResolve`, and the file-system work a resolution costs (the root's real path is
 * cached, at most 256 roots; an existing path is one `realpath`).
 */
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { MAX_PATH_BYTES } from "../../src/layers/Workspace.js"
import { Workspace } from "../../src/services/Workspace.js"
import { traversalOf } from "../helpers/pathTraversal.js"
import { tempDir } from "../helpers/tempDir.js"

/** The file-system calls the resolver made, as `realPath <path>` / `readLink <path>`. */
type Calls = Array<string>

/** Node's `FileSystem`, recording each `realPath` and `readLink` when it runs. */
const recordingFs = (calls: Calls): Layer.Layer<FileSystem.FileSystem> =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fs) =>
      FileSystem.FileSystem.of({
        ...fs,
        realPath: (p) => Effect.andThen(Effect.sync(() => calls.push(`realPath ${p}`)), fs.realPath(p)),
        readLink: (p) => Effect.andThen(Effect.sync(() => calls.push(`readLink ${p}`)), fs.readLink(p))
      }))
  ).pipe(Layer.provide(NodeFileSystem.layer))

/** A workspace fixed at `root` over Node's file system (recording into `calls` when given). */
const fixed = (root: string, calls?: Calls) =>
  Workspace.layerFixed(root).pipe(Layer.provide(calls === undefined ? NodeFileSystem.layer : recordingFs(calls)))


const resolve = (input: string) => Effect.flatMap(Workspace, (w) => w.resolve(input))
const refuse = (input: string) => traversalOf(resolve(input))
const root = Effect.flatMap(Workspace, (w) => w.root)

const write = (p: string, text = "x") => {
  fs.mkdirSync(path.dirname(p), { recursive: true })
  fs.writeFileSync(p, text)
}

describe("a workspace root that does not exist yet", () => {
  it.effect("is taken as written, keeps paths inside it, and works once it is created", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("ws-later-")
      const later = path.join(base, "later")
      write(path.join(base, "secret"), "TOP SECRET")
      yield* Effect.gen(function*() {
        expect(yield* root).toBe(later)
        expect(yield* resolve(".")).toBe(later)
        expect(yield* resolve("notes/a.md")).toBe(path.join(later, "notes", "a.md"))
        expect(yield* resolve(path.join(later, "b.md"))).toBe(path.join(later, "b.md"))
        for (const input of ["../secret", path.join(base, "secret"), "..", "notes/../../secret"]) {
          const error = yield* refuse(input)
          expect(error.path).toBe(input)
          expect(error.workspace).toBe(later)
          expect(error.reason).toMatch(/outside/)
        }
        // created after the first calls: the same service sees it
        fs.mkdirSync(later)
        fs.symlinkSync(path.join(base, "secret"), path.join(later, "out"))
        expect(yield* root).toBe(later)
        expect(yield* resolve("notes/a.md")).toBe(path.join(later, "notes", "a.md"))
        expect((yield* refuse("out")).reason).toMatch(/symlink/)
      }).pipe(Effect.provide(fixed(later)))
    }))

  it.effect("below a symlinked parent: taken as written, then its real path once it exists", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("ws-parent-")
      const real = path.join(base, "real")
      const link = path.join(base, "link")
      fs.mkdirSync(real)
      fs.symlinkSync(real, link)
      write(path.join(base, "secret"), "TOP SECRET")
      const spelled = path.join(link, "ws")
      yield* Effect.gen(function*() {
        expect(yield* root).toBe(spelled)
        expect(yield* resolve("a.txt")).toBe(path.join(spelled, "a.txt"))
        expect((yield* refuse("../../secret")).workspace).toBe(spelled)
        fs.mkdirSync(path.join(real, "ws"))
        expect(yield* root).toBe(path.join(real, "ws"))
        expect(yield* resolve("a.txt")).toBe(path.join(real, "ws", "a.txt"))
        // either spelling of the root now leads to the real path
        expect(yield* resolve(path.join(spelled, "a.txt"))).toBe(path.join(real, "ws", "a.txt"))
        expect(yield* resolve(path.join(real, "ws", "b", "c.txt"))).toBe(path.join(real, "ws", "b", "c.txt"))
        const error = yield* refuse("../../secret")
        expect(error.workspace).toBe(path.join(real, "ws"))
        expect(error.reason).toMatch(/outside/)
        expect((yield* refuse(path.join(real, "ws-evil", "x"))).reason).toMatch(/outside/)
      }).pipe(Effect.provide(fixed(spelled)))
    }))

  it.effect("as a dangling symlink: the link itself until its target is created", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("ws-dangling-root-")
      const target = path.join(base, "target")
      const link = path.join(base, "ws")
      fs.symlinkSync(target, link)
      yield* Effect.gen(function*() {
        expect(yield* root).toBe(link)
        expect(yield* resolve(".")).toBe(link)
        expect(yield* resolve("")).toBe(link)
        expect(yield* resolve("a.txt")).toBe(path.join(link, "a.txt"))
        fs.mkdirSync(target)
        expect(yield* root).toBe(target)
        expect(yield* resolve(".")).toBe(target)
        expect(yield* resolve("a.txt")).toBe(path.join(target, "a.txt"))
      }).pipe(Effect.provide(fixed(link)))
    }))
})

describe("dangling symlinks: the target is walked name by name", () => {
  // ws/dir/<link> -> <target>; ws/dir exists, the target's first name does not
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["a missing name taken back by ..", "gone/../made.txt", "dir/made.txt"],
    ["a . after a missing name", "gone/./../made.txt", "dir/made.txt"],
    ["an empty segment after a missing name", "gone//../made.txt", "dir/made.txt"],
    ["a trailing slash", "gone/sub/", "dir/gone/sub"],
    [".. past the missing names goes up from the real directory", "gone/../../up.txt", "up.txt"],
    ["an existing directory, then missing names", "../other/new/../n.txt", "other/n.txt"]
  ]

  for (const [name, target, expected] of cases) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const ws = yield* tempDir("ws-dangling-")
        fs.mkdirSync(path.join(ws, "dir"))
        fs.mkdirSync(path.join(ws, "other"))
        fs.symlinkSync(target, path.join(ws, "dir", "link"))
        expect(yield* Effect.provide(resolve("dir/link"), fixed(ws))).toBe(path.join(ws, expected))
      }))
  }
})

describe("dangling symlinks with absolute or roundabout targets", () => {
  it.effect("an absolute target inside, a climb out of the root and back in, a target outside", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("ws-roundabout-")
      const ws = path.join(base, "ws")
      fs.mkdirSync(path.join(ws, "dir"), { recursive: true })
      fs.symlinkSync(path.join(ws, "dir", "abs-new.txt"), path.join(ws, "dir", "abs"))
      fs.symlinkSync("../../ws/dir/back.txt", path.join(ws, "dir", "round"))
      fs.symlinkSync("../../ws-evil/x.txt", path.join(ws, "dir", "sibling"))
      fs.symlinkSync(path.join(base, "later", "x.txt"), path.join(ws, "dir", "abs-out"))
      yield* Effect.gen(function*() {
        expect(yield* resolve("dir/abs")).toBe(path.join(ws, "dir", "abs-new.txt"))
        expect(yield* resolve("dir/round")).toBe(path.join(ws, "dir", "back.txt"))
        for (const input of ["dir/sibling", "dir/abs-out", "dir/abs-out/deeper"]) {
          const error = yield* refuse(input)
          expect(error.reason).toBe("a symlink leads outside the root")
          expect(error.workspace).toBe(ws)
        }
        // a backslash is a character of a name on POSIX, not a separator
        expect(yield* resolve("..\\secret")).toBe(path.join(ws, "..\\secret"))
      }).pipe(Effect.provide(fixed(ws)))
      expect(fs.existsSync(path.join(base, "later"))).toBe(false)
      expect(fs.existsSync(path.join(base, "ws-evil"))).toBe(false)
    }))
})

/** `count` symlinks link1 -> link2 -> ... -> link<count> -> end.txt (missing), in a new temp dir. */
const chain = (count: number) =>
  Effect.map(tempDir("ws-chain-"), (ws) => {
    for (let i = 1; i <= count; i++) {
      fs.symlinkSync(i === count ? "end.txt" : `link${i + 1}`, path.join(ws, `link${i}`))
    }
    return ws
  })

describe("symlink hops", () => {
  it.effect("a chain of 40 dangling links is followed to its end", () =>
    Effect.gen(function*() {
      const ws = yield* chain(40)
      expect(yield* Effect.provide(resolve("link1"), fixed(ws))).toBe(path.join(ws, "end.txt"))
    }))

  it.effect("a chain of 41 is refused as a loop would be", () =>
    Effect.gen(function*() {
      const ws = yield* chain(41)
      const error = yield* Effect.provide(refuse("link1"), fixed(ws))
      expect(error.path).toBe("link1")
      expect(error.reason).toBe("too many levels of symbolic links")
      // the link after the first one has 40 hops left
      expect(yield* Effect.provide(resolve("link2"), fixed(ws))).toBe(path.join(ws, "end.txt"))
    }))
})

describe("path arguments the resolver refuses before any I/O, or not", () => {
  /** A relative path of exactly `bytes` bytes, in names of at most 200 bytes. */
  const pathOf = (bytes: number): string => {
    const names: Array<string> = []
    let left = bytes
    while (left > 0) {
      const size = Math.min(200, left - (names.length > 0 ? 1 : 0))
      names.push("n".repeat(size))
      left -= size + (names.length > 1 ? 1 : 0)
    }
    return names.join("/")
  }

  it.effect("a path of exactly MAX_PATH_BYTES bytes is accepted, one byte more is refused", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("ws-long-")
      const exact = pathOf(MAX_PATH_BYTES)
      const over = pathOf(MAX_PATH_BYTES + 1)
      expect(Buffer.byteLength(exact)).toBe(MAX_PATH_BYTES)
      expect(Buffer.byteLength(over)).toBe(MAX_PATH_BYTES + 1)
      yield* Effect.gen(function*() {
        expect(yield* resolve(exact)).toBe(path.join(ws, exact))
        const error = yield* refuse(over)
        expect(error.reason).toBe(`path longer than ${MAX_PATH_BYTES} bytes`)
        expect(error.workspace).toBe(ws)
      }).pipe(Effect.provide(fixed(ws)))
    }))

  it.effect("only a path that starts with a scheme is a URL", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("ws-url-")
      yield* Effect.gen(function*() {
        expect(yield* resolve("notes/http://example.com")).toBe(path.join(ws, "notes", "http:", "example.com"))
        for (const input of ["s3://bucket/key", "git+ssh://host/repo"]) {
          const error = yield* refuse(input)
          expect(error.reason).toBe("URLs are not paths")
        }
      }).pipe(Effect.provide(fixed(ws)))
    }))
})

describe("Workspace.tryResolve", () => {
  it.effect("is Some real path inside the root and None for what leads out", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("ws-try-")
      const ws = path.join(base, "ws")
      write(path.join(ws, "sub", "in.txt"))
      write(path.join(base, "secret"))
      fs.symlinkSync(path.join(base, "secret"), path.join(ws, "out"))
      fs.symlinkSync("sub", path.join(ws, "in-link"))
      yield* Effect.gen(function*() {
        const workspace = yield* Workspace
        expect(yield* workspace.tryResolve("in-link/in.txt")).toEqual(Option.some(path.join(ws, "sub", "in.txt")))
        expect(yield* workspace.tryResolve("new/file.txt")).toEqual(Option.some(path.join(ws, "new", "file.txt")))
        for (const input of ["out", "../secret", path.join(base, "secret"), "a\0b", "file:///etc/passwd"]) {
          expect(yield* workspace.tryResolve(input)).toEqual(Option.none())
        }
      }).pipe(Effect.provide(fixed(ws)))
    }))
})

describe("the file-system work of a resolution", () => {
  it.effect("the root's real path is looked up once, not at each call", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("ws-cost-")
      const ws = path.join(base, "ws")
      write(path.join(ws, "a.txt"))
      fs.symlinkSync(ws, path.join(base, "link"))
      const calls: Calls = []
      yield* Effect.gen(function*() {
        expect(yield* root).toBe(ws)
        expect(yield* resolve("a.txt")).toBe(path.join(ws, "a.txt"))
        expect(yield* root).toBe(ws)
        expect(yield* Effect.flatMap(Workspace, (w) => w.display(path.join(ws, "a.txt")))).toBe("a.txt")
      }).pipe(Effect.provide(fixed(path.join(base, "link"), calls)))
      expect(calls.filter((c) => c === `realPath ${path.join(base, "link")}`)).toHaveLength(1)
    }))

  it.effect("at most 256 roots are remembered: the 257th forgets them", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("ws-roots-")
      const roots = Array.from({ length: 257 }, (_, i) => path.join(base, `r${i}`))
      for (const r of roots) fs.mkdirSync(r)
      const calls: Calls = []
      const first = roots[0] ?? base
      const lookupsOfFirst = () => calls.filter((c) => c === `realPath ${first}`).length
      yield* Effect.gen(function*() {
        for (const r of roots.slice(0, 256)) expect(yield* Workspace.withRoot(root, r)).toBe(r)
        expect(yield* Workspace.withRoot(root, first)).toBe(first)
        expect(lookupsOfFirst()).toBe(1)
        expect(yield* Workspace.withRoot(root, roots[256] ?? base)).toBe(roots[256])
        expect(yield* Workspace.withRoot(root, first)).toBe(first)
        expect(lookupsOfFirst()).toBe(2)
        expect(yield* Workspace.withRoot(root, first)).toBe(first)
        expect(lookupsOfFirst()).toBe(2)
      }).pipe(Effect.provide(fixed(base, calls)))
    }))

  it.effect("an existing path is one realpath; a new file in an existing directory, two and a readlink", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("ws-cost-")
      write(path.join(ws, "a", "b.txt"))
      const calls: Calls = []
      yield* Effect.gen(function*() {
        yield* root
        calls.length = 0
        expect(yield* resolve("a/b.txt")).toBe(path.join(ws, "a", "b.txt"))
        expect(calls).toEqual([`realPath ${path.join(ws, "a", "b.txt")}`])
        calls.length = 0
        expect(yield* resolve("a/new.txt")).toBe(path.join(ws, "a", "new.txt"))
        expect(calls).toEqual([
          `realPath ${path.join(ws, "a", "new.txt")}`,
          `realPath ${path.join(ws, "a")}`,
          `readLink ${path.join(ws, "a", "new.txt")}`
        ])
      }).pipe(Effect.provide(fixed(ws, calls)))
    }))

  it.effect("the root of a workspace that does not exist yet: looked up, nothing more", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("ws-cost-")
      const later = path.join(base, "later")
      const calls: Calls = []
      expect(yield* Effect.provide(resolve("."), fixed(later, calls))).toBe(later)
      expect(calls).toEqual([`realPath ${later}`, `realPath ${later}`])
    }))
})
