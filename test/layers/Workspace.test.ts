/**
 * The workspace resolver against real directories: every escape vector must fail with a
 * `PathTraversalError`, and every legitimate path must resolve to its real absolute path.
 */
import { NodeServices } from "@effect/platform-node"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PathTraversalError } from "../../src/domain/errors.js"
import { MAX_PATH_BYTES } from "../../src/layers/Workspace.js"
import { ToolSystem, Workspace } from "../../src/index.js"
import { traversalOf } from "../helpers/pathTraversal.js"

// ---------------------------------------------------------------------------------------------
// The fixture: <base>/ws (the workspace), <base>/ws-evil (a sibling sharing the prefix),
// <base>/outside (a secret), <base>/ws-link -> ws (the root reached through a symlink).
// ---------------------------------------------------------------------------------------------
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ws-test-")))
const ws = path.join(base, "ws")
const evil = path.join(base, "ws-evil")
const outside = path.join(base, "outside")
const wsLink = path.join(base, "ws-link")
const other = path.join(base, "other-root")

const mkdir = (p: string) => fs.mkdirSync(p, { recursive: true })
const write = (p: string, text: string) => {
  mkdir(path.dirname(p))
  fs.writeFileSync(p, text)
}
const link = (target: string, at: string) => fs.symlinkSync(target, path.join(ws, at))

write(path.join(ws, "file.txt"), "hello")
write(path.join(ws, "a", "b.txt"), "b")
write(path.join(ws, "sub", "inner.txt"), "inner")
write(path.join(ws, "..foo"), "dots")
mkdir(path.join(ws, "..."))
write(path.join(ws, "ünïcødé", "文件.txt"), "unicode")
write(path.join(ws, "with space", "a b.txt"), "spaces")
mkdir(path.join(ws, "deep", "x", "y"))
write(path.join(evil, "x"), "evil")
write(path.join(outside, "secret"), "TOP SECRET")
mkdir(path.join(outside, "deep", "deeper"))
mkdir(other)
write(path.join(other, "o.txt"), "other")
fs.symlinkSync(ws, wsLink)

// leading out
link(path.join(outside, "secret"), "link-out-file")
link("../outside", "link-out") // a directory, relative target
link("chain-b", "chain-a")
link("chain-c", "chain-b")
link(path.join(outside, "secret"), "chain-c")
link("loop-b", "loop-a")
link("loop-a", "loop-b")
link(path.join(outside, "not-yet"), "dangling-out")
link("..", "up")
link(path.join(outside, "deep", "deeper"), "out-deep")
link("out-deep/../escaped", "sneaky") // dangling; `..` is taken from the real directory (outside/deep)
link("../outside-new/x", "dangling-rel-out")
fs.symlinkSync("missing/../../link-out/x", path.join(ws, "sub", "lexical-trick")) // dangling; must not become ws/link-out/x
// staying inside
link("file.txt", "link-in-file")
link("sub", "link-in-dir")
link(path.join(ws, "sub", "inner.txt"), "link-in-abs")
link("not-created.txt", "dangling-in")
link("deep/x/y", "shortcut")
fs.symlinkSync("../made.txt", path.join(ws, "deep", "x", "y", "rel-dangling")) // physically deep/x/made.txt

afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

const fixed = (root: string) => Workspace.layerFixed(root).pipe(Layer.provide(NodeServices.layer))


/** Resolves `input` in a workspace fixed at `root`, expecting the escape defect. */
const refused = (input: string, root: string = ws) =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    return yield* traversalOf(workspace.resolve(input))
  }).pipe(Effect.provide(fixed(root)))

/** Resolves `input` in a workspace fixed at `root`. */
const resolved = (input: string, root: string = ws) =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    return yield* workspace.resolve(input)
  }).pipe(Effect.provide(fixed(root)))

const expectTraversal = (error: PathTraversalError, input: string, workspace: string = ws) => {
  expect(error).toBeInstanceOf(PathTraversalError)
  expect(error._tag).toBe("PathTraversalError")
  expect(error.code).toBe("PATH_TRAVERSAL")
  expect(error.path).toBe(input)
  expect(error.workspace).toBe(workspace)
  expect(error.message).toContain("PATH_TRAVERSAL")
}

const longPath = "a/".repeat(MAX_PATH_BYTES / 2 + 1) + "x"

const vectors: ReadonlyArray<readonly [string, string]> = [
  ["relative ..", "../outside/secret"],
  ["bare ..", ".."],
  ["a/../../x", "a/../../x"],
  ["deep climb", "a/b/c/../../../../outside/secret"],
  ["absolute outside", "/etc/passwd"],
  ["absolute outside in the same temp dir", path.join(outside, "secret")],
  ["sibling prefix /ws-evil beside /ws", path.join(evil, "x")],
  ["sibling prefix, relative", "../ws-evil/x"],
  ["./../ws-evil", "./../ws-evil"],
  ["ws/../../", "ws/../../"],
  ["trailing slashes", "..//"],
  ["dot segments around ..", "./././../outside/./secret"],
  ["symlinked file leading out", "link-out-file"],
  ["symlinked directory leading out", "link-out"],
  ["file below a symlinked directory leading out", "link-out/secret"],
  ["new file below a symlinked directory leading out", "link-out/new/file.txt"],
  ["symlink chain a -> b -> c -> outside", "chain-a"],
  ["symlink loop", "loop-a"],
  ["file below a symlink loop", "loop-a/x"],
  ["dangling symlink pointing outside", "dangling-out"],
  ["a new file below a dangling symlink pointing outside", "dangling-out/newfile"],
  ["dangling symlink pointing outside, trailing slash", "dangling-out/"],
  ["dangling symlink pointing outside, absolute with trailing slash", path.join(ws, "dangling-out") + "/"],
  ["dangling symlink with a relative target outside", "dangling-rel-out"],
  ["dangling symlink whose target climbs out through a symlinked directory", "sneaky"],
  ["dangling symlink with a `missing/..` target onto a link leading out", "sub/lexical-trick"],
  ["symlink inside pointing to ..", "up"],
  ["below a symlink pointing to ..", "up/outside/secret"],
  ["symlink to .. then back into a sibling", "up/ws-evil/x"],
  ["NUL byte", "file.txt\0../../etc/passwd"],
  ["NUL byte alone", "\0"],
  ["file:///etc/passwd", "file:///etc/passwd"],
  ["file:// + an inside path", `file://${ws}/file.txt`],
  ["over-long path", longPath],
  ["over-long path of multi-byte characters", "é".repeat(MAX_PATH_BYTES / 2 + 1)]
]

describe("Workspace.resolve refuses escapes", () => {
  it("has at least 20 vectors", () => {
    expect(vectors.length).toBeGreaterThanOrEqual(20)
  })

  for (const [name, input] of vectors) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const error = yield* refused(input)
        expectTraversal(error, input)
      }))
  }

  it.effect("the over-long path is longer than the limit in bytes", () =>
    Effect.sync(() => {
      expect(Buffer.byteLength(longPath)).toBeGreaterThan(MAX_PATH_BYTES)
      expect("é".repeat(MAX_PATH_BYTES / 2 + 1).length).toBeLessThan(MAX_PATH_BYTES)
    }))

  it.effect("the reason names what went wrong", () =>
    Effect.gen(function*() {
      expect((yield* refused("a\0b")).reason).toMatch(/NUL/)
      expect((yield* refused("file:///etc/passwd")).reason).toMatch(/URL/)
      expect((yield* refused("link-out")).reason).toMatch(/symlink/)
      expect((yield* refused("loop-a")).reason).toMatch(/symbolic links/)
      expect((yield* refused("../x")).reason).toMatch(/outside/)
    }))

  it.effect("a failed resolution touches nothing on disk", () =>
    Effect.gen(function*() {
      yield* refused("dangling-out/newfile")
      yield* refused("link-out/new/file.txt")
      expect(fs.existsSync(path.join(outside, "not-yet"))).toBe(false)
      expect(fs.existsSync(path.join(outside, "new"))).toBe(false)
    }))
})

describe("Workspace.resolve with the root given through a symlink", () => {
  it.effect("inside paths work through either spelling and resolve to the real path", () =>
    Effect.gen(function*() {
      expect(yield* resolved("file.txt", wsLink)).toBe(path.join(ws, "file.txt"))
      expect(yield* resolved(path.join(wsLink, "file.txt"), wsLink)).toBe(path.join(ws, "file.txt"))
      expect(yield* resolved(path.join(ws, "a", "b.txt"), wsLink)).toBe(path.join(ws, "a", "b.txt"))
      expect(yield* resolved(path.join(wsLink, "new", "f.txt"), wsLink)).toBe(path.join(ws, "new", "f.txt"))
      expect(yield* resolved(".", wsLink)).toBe(ws)
    }))

  it.effect("outside paths fail, through either spelling, and report the real root", () =>
    Effect.gen(function*() {
      for (
        const input of [
          path.join(wsLink, "..", "outside", "secret"),
          path.join(ws, "..", "outside", "secret"),
          path.join(wsLink, "link-out", "secret"),
          path.join(outside, "secret"),
          "../outside/secret",
          `${wsLink}-evil/x`
        ]
      ) {
        expectTraversal(yield* refused(input, wsLink), input, ws)
      }
    }))
})

const legit: ReadonlyArray<readonly [string, string, string]> = [
  ["a plain relative file", "file.txt", "file.txt"],
  ["./a/../b", "./a/../b", "b"],
  ["a nested file", "a/b.txt", "a/b.txt"],
  ["the root as .", ".", ""],
  ["the root as an empty string", "", ""],
  ["the root as ./", "./", ""],
  ["an absolute path inside", path.join(ws, "a", "b.txt"), "a/b.txt"],
  ["the absolute root", ws, ""],
  ["an absolute path inside with a trailing slash", `${ws}/sub/`, "sub"],
  ["~ taken literally", "~/x", "~/x"],
  ["~ alone", "~", "~"],
  ["a new file in new folders", "new/dir/file.txt", "new/dir/file.txt"],
  ["a climb that comes back in", "../ws/file.txt", "file.txt"],
  ["a symlinked file that stays inside", "link-in-file", "file.txt"],
  ["a symlinked directory that stays inside", "link-in-dir", "sub"],
  ["a file below a symlinked directory inside", "link-in-dir/inner.txt", "sub/inner.txt"],
  ["a new file below a symlinked directory inside", "link-in-dir/new.txt", "sub/new.txt"],
  ["an absolute symlink that stays inside", "link-in-abs", "sub/inner.txt"],
  ["a dangling symlink pointing inside", "dangling-in", "not-created.txt"],
  ["a dangling symlink reached through a symlinked directory", "shortcut/rel-dangling", "deep/x/made.txt"],
  ["a name starting with ..", "..foo", "..foo"],
  ["a directory named ...", "...", "..."],
  ["a file below ...", ".../x", ".../x"],
  ["unicode names", "ünïcødé/文件.txt", "ünïcødé/文件.txt"],
  ["spaces", "with space/a b.txt", "with space/a b.txt"],
  ["a file below a regular file (left for the tool to fail on)", "file.txt/x", "file.txt/x"],
  ["a scheme-looking relative name", "file:/etc/passwd", "file:/etc/passwd"],
  ["a path just under the length limit", "b/".repeat(MAX_PATH_BYTES / 2 - 1) + "y", "b/".repeat(MAX_PATH_BYTES / 2 - 1) + "y"]
]

describe("Workspace.resolve accepts legitimate paths", () => {
  for (const [name, input, expected] of legit) {
    it.effect(name, () =>
      Effect.gen(function*() {
        expect(yield* resolved(input)).toBe(expected === "" ? ws : path.join(ws, expected))
      }))
  }

  it.effect("display shows paths relative to the root", () =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      expect(yield* workspace.display(path.join(ws, "a", "b.txt"))).toBe(path.join("a", "b.txt"))
      expect(yield* workspace.display(ws)).toBe(".")
      expect(yield* workspace.root).toBe(ws)
    }).pipe(Effect.provide(fixed(wsLink))))
})

describe("Workspace roots", () => {
  it.effect("withRoot overrides the fixed root for the wrapped effect only", () =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const inner = yield* Effect.all([workspace.root, workspace.resolve("o.txt"), traversalOf(workspace.resolve("../ws/../outside"))])
        .pipe(Workspace.withRoot(other))
      expect(inner[0]).toBe(other)
      expect(inner[1]).toBe(path.join(other, "o.txt"))
      expect(inner[2].workspace).toBe(other)
      // a path inside the fixed root is outside the override
      const escaped = yield* traversalOf(Workspace.withRoot(workspace.resolve(path.join(ws, "file.txt")), other))
      expectTraversal(escaped, path.join(ws, "file.txt"), other)
      // after the wrapped effect, the fixed root is back
      expect(yield* workspace.root).toBe(ws)
      expect(yield* workspace.resolve("o.txt")).toBe(path.join(ws, "o.txt"))
    }).pipe(Effect.provide(fixed(ws))))

  it.effect("withRoot is scoped to its fiber: a concurrent call keeps the fixed root", () =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      // the other fiber reads the root while the first one is inside withRoot
      const inside = yield* Deferred.make<void>()
      const read = yield* Deferred.make<void>()
      const [a, b] = yield* Effect.all(
        [
          Workspace.withRoot(
            Deferred.succeed(inside, undefined).pipe(Effect.andThen(Deferred.await(read)), Effect.andThen(workspace.root)),
            other
          ),
          Deferred.await(inside).pipe(Effect.andThen(workspace.root), Effect.tap(Deferred.succeed(read, undefined)))
        ],
        { concurrency: 2 }
      )
      expect(a).toBe(other)
      expect(b).toBe(ws)
    }).pipe(Effect.provide(fixed(ws))))

  it.effect("Workspace.layer reads WORKSPACE_ROOT, then process.cwd(), at each call", () =>
    Effect.gen(function*() {
      const saved = process.env.WORKSPACE_ROOT
      const savedCwd = process.cwd()
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (saved === undefined) delete process.env.WORKSPACE_ROOT
          else process.env.WORKSPACE_ROOT = saved
          process.chdir(savedCwd)
        })
      )
      const workspace = yield* Workspace
      process.env.WORKSPACE_ROOT = ws
      expect(yield* workspace.root).toBe(ws)
      expect(yield* workspace.resolve("file.txt")).toBe(path.join(ws, "file.txt"))
      expectTraversal(yield* traversalOf(workspace.resolve("../outside/secret")), "../outside/secret", ws)
      // the same service instance follows a change of the variable
      process.env.WORKSPACE_ROOT = other
      expect(yield* workspace.root).toBe(other)
      expect(yield* workspace.resolve("o.txt")).toBe(path.join(other, "o.txt"))
      // a symlinked root is reported by its real path
      process.env.WORKSPACE_ROOT = wsLink
      expect(yield* workspace.root).toBe(ws)
      // unset (or empty): the current directory, read at each call
      delete process.env.WORKSPACE_ROOT
      expect(yield* workspace.root).toBe(fs.realpathSync(process.cwd()))
      process.chdir(outside)
      expect(yield* workspace.root).toBe(outside)
      expect(yield* workspace.resolve("secret")).toBe(path.join(outside, "secret"))
      process.env.WORKSPACE_ROOT = ""
      process.chdir(other)
      expect(yield* workspace.root).toBe(other)
      // the request-scoped override beats the variable
      process.env.WORKSPACE_ROOT = ws
      expect(yield* Workspace.withRoot(workspace.root, other)).toBe(other)
    }).pipe(Effect.provide(Workspace.layer.pipe(Layer.provide(NodeServices.layer)))))
})

describe("the executor never turns an escape into a result", () => {
  const system = ToolSystem.layerNode({ workspace: Workspace.layerFixed(ws) })

  it.effect("read_file of ../outside/secret dies with PathTraversalError", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      const exit = yield* Effect.exit(tools.execute("read_file", { filepath: "../outside/secret" }))
      expectTraversal(yield* traversalOf(exit), "../outside/secret")
      expect(Cause.pretty(Exit.isFailure(exit) ? exit.cause : Cause.empty)).not.toContain("TOP SECRET")
    }).pipe(Effect.provide(system)))

  it.effect("write_file through a symlinked directory leading out dies and writes nothing outside", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      const before = fs.readdirSync(outside).sort()
      const error = yield* traversalOf(
        tools.execute("write_file", { filepath: "link-out/x", content: "pwned" }, { confirm: true })
      )
      expectTraversal(error, "link-out/x")
      expect(fs.existsSync(path.join(outside, "x"))).toBe(false)
      expect(fs.readdirSync(outside).sort()).toEqual(before)
      expect(fs.readFileSync(path.join(outside, "secret"), "utf8")).toBe("TOP SECRET")
    }).pipe(Effect.provide(system)))

  it.effect("write_file through a dangling symlink leading out dies and creates nothing", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      const error = yield* traversalOf(
        tools.execute("write_file", { filepath: "dangling-out", content: "pwned" }, { confirm: true })
      )
      expectTraversal(error, "dangling-out")
      expect(fs.existsSync(path.join(outside, "not-yet"))).toBe(false)
    }).pipe(Effect.provide(system)))

  it.effect("the same tools work inside the workspace", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      const read = yield* tools.execute("read_file", { filepath: "link-in-file" })
      expect(read.success).toBe(true)
      expect(read.output).toBe("hello")
      const wrote = yield* tools.execute("write_file", { filepath: "made/by/test.txt", content: "ok" }, { confirm: true })
      expect(wrote.success).toBe(true)
      expect(fs.readFileSync(path.join(ws, "made", "by", "test.txt"), "utf8")).toBe("ok")
    }).pipe(Effect.provide(system)))
})
