/**
 * `list_files`: the listing, its markers, cap and notes, patterns, links and special files, and
 * the workspace's bounds. The proofs on the LIST_FILES_MAX_VISITED cap (50,000 files made for
 * each) are in `listFiles.slow.test.ts`. On Effect 4: `Cause.findDefect` for `dieOption`, `Effect.callback` for `Effect.async`,
 * `it.effect` for `it.scoped`, `Effect.andThen` for `zipRight`.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option, Result } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { PathTraversalError, ToolSystem, Workspace } from "../../../src/index.js"
import { LIST_FILES_MAX_ENTRIES, listFiles } from "../../../src/tools/builtin/listFiles.js"
import { recordingLogs, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { list as listIn } from "./listFilesHarness.js"

let base: string
let ws: string
let outside: string
let crowded: string

const write = (rel: string, content: string) => {
  const file = Path.join(ws, rel)
  Fs.mkdirSync(Path.dirname(file), { recursive: true })
  Fs.writeFileSync(file, content)
}

beforeAll(() => {
  base = Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "list-files-")))
  ws = Path.join(base, "ws")
  outside = Path.join(base, "outside")
  Fs.mkdirSync(ws)
  Fs.mkdirSync(Path.join(outside, "sub"), { recursive: true })
  Fs.writeFileSync(Path.join(outside, "secret.txt"), "top secret")
  Fs.writeFileSync(Path.join(outside, "sub", "deeper-secret.txt"), "also secret")
  write("README.md", "r".repeat(1234))
  write("empty.txt", "")
  write(".hidden", "h")
  write("src/index.ts", "export {}\n")
  write("src/util.ts", "u")
  write("src/deep/nested.ts", "nested")
  write("src/deep/notes.md", "notes")
  write(".git/HEAD", "ref: refs/heads/main\n")
  write(".git/objects/ab/cdef", "blob")
  write("src/.git/config", "nested repo")
  write("many/f.txt", "x")
  // a second workspace, for the cap
  crowded = Path.join(base, "crowded")
  Fs.mkdirSync(Path.join(crowded, "many"), { recursive: true })
  for (let i = 0; i < LIST_FILES_MAX_ENTRIES + 10; i++) {
    Fs.writeFileSync(Path.join(crowded, "many", `f${String(i).padStart(4, "0")}.txt`), "x")
  }
  Fs.symlinkSync(outside, Path.join(ws, "out"))
  Fs.symlinkSync(Path.join(outside, "secret.txt"), Path.join(ws, "outfile"))
  Fs.symlinkSync("src", Path.join(ws, "inlink"))
})

afterAll(() => {
  Fs.rmSync(base, { recursive: true, force: true })
})

const list = (args: Record<string, unknown>, root?: string) => listIn(args, root ?? ws)

/** The entry lines of a listing (without the header and notes). */
const entries = (output: unknown): ReadonlyArray<string> =>
  String(output).split("\n").filter((line) => line.startsWith("["))

const traversalOf = (exit: Exit.Exit<unknown, unknown>): Option.Option<PathTraversalError> =>
  Exit.isFailure(exit)
    ? Option.filter(Result.getSuccess(Cause.findDefect(exit.cause)), (d): d is PathTraversalError => d instanceof PathTraversalError)
    : Option.none()

describe("list_files", () => {
  it.effect("lists the top level of the workspace, sorted, with sizes and markers", () =>
    Effect.gen(function*() {
      const r = yield* list({})
      expect(r.success).toBe(true)
      expect(String(r.output).split("\n")[0]).toBe("6 entries in the workspace root matching \"*\" (this level only):")
      expect(entries(r.output)).toEqual([
        "[dir]  .git/",
        "[file] .hidden (1 bytes)",
        "[file] README.md (1234 bytes)",
        "[file] empty.txt (0 bytes)",
        "[dir]  many/",
        "[dir]  src/"
      ])
    }))

  it.effect("shows workspace-relative paths for a subdirectory", () =>
    Effect.gen(function*() {
      const r = yield* list({ directory: "src" })
      expect(r.success).toBe(true)
      expect(String(r.output).split("\n")[0]).toBe("4 entries in src matching \"*\" (this level only):")
      expect(entries(r.output)).toEqual([
        "[dir]  src/.git/",
        "[dir]  src/deep/",
        "[file] src/index.ts (10 bytes)",
        "[file] src/util.ts (1 bytes)"
      ])
      const nested = yield* list({ directory: "src/deep/" })
      expect(entries(nested.output)).toEqual(["[file] src/deep/nested.ts (6 bytes)", "[file] src/deep/notes.md (5 bytes)"])
    }))

  it.effect("recursive matches the pattern at any depth; not recursive, only at the top", () =>
    Effect.gen(function*() {
      const flat = yield* list({ pattern: "*.ts" })
      expect(flat.success).toBe(true)
      expect(flat.output).toBe("No entries in the workspace root matching \"*.ts\" (this level only).")
      const deep = yield* list({ pattern: "*.ts", recursive: true })
      expect(entries(deep.output)).toEqual([
        "[file] src/deep/nested.ts (6 bytes)",
        "[file] src/index.ts (10 bytes)",
        "[file] src/util.ts (1 bytes)"
      ])
      expect(String(deep.output)).toContain("(at any depth)")
      const inSrc = yield* list({ directory: "src", pattern: "*.md", recursive: true })
      expect(entries(inSrc.output)).toEqual(["[file] src/deep/notes.md (5 bytes)"])
      const pathPattern = yield* list({ pattern: "src/deep/*" })
      expect(entries(pathPattern.output)).toEqual([
        "[file] src/deep/nested.ts (6 bytes)",
        "[file] src/deep/notes.md (5 bytes)"
      ])
    }))

  it.effect("lists hidden files and .git directories but never what is inside .git", () =>
    Effect.gen(function*() {
      const r = yield* list({ recursive: true, pattern: "*" })
      const lines = entries(r.output)
      expect(String(r.output).split("\n")[0]).toBe("13 entries in the workspace root matching \"*\" (at any depth):")
      expect(lines).toEqual([
        "[dir]  .git/",
        "[file] .hidden (1 bytes)",
        "[file] README.md (1234 bytes)",
        "[file] empty.txt (0 bytes)",
        "[dir]  many/",
        "[file] many/f.txt (1 bytes)",
        "[dir]  src/",
        "[dir]  src/.git/",
        "[dir]  src/deep/",
        "[file] src/deep/nested.ts (6 bytes)",
        "[file] src/deep/notes.md (5 bytes)",
        "[file] src/index.ts (10 bytes)",
        "[file] src/util.ts (1 bytes)"
      ])
      expect(lines).toContain("[file] .hidden (1 bytes)")
      expect(lines).toContain("[dir]  .git/")
      expect(lines).toContain("[dir]  src/.git/")
      expect(lines.filter((l) => l.includes(".git/") && !l.endsWith(".git/"))).toEqual([])
      const inside = yield* list({ pattern: ".git/*" })
      expect(inside.output).toBe("No entries in the workspace root matching \".git/*\" (this level only).")
    }))

  it.effect("caps the listing and says how many more entries there are and how to narrow it", () =>
    Effect.gen(function*() {
      const r = yield* list({ directory: "many" }, crowded)
      expect(r.success).toBe(true)
      const lines = entries(r.output)
      expect(lines).toHaveLength(LIST_FILES_MAX_ENTRIES)
      expect(lines[0]).toBe("[file] many/f0000.txt (1 bytes)")
      expect(lines.at(-1)).toBe(`[file] many/f${String(LIST_FILES_MAX_ENTRIES - 1).padStart(4, "0")}.txt (1 bytes)`)
      const out = String(r.output)
      expect(out.split("\n")[0]).toBe(`${LIST_FILES_MAX_ENTRIES + 10} entries in many matching "*" (this level only):`)
      expect(out.split("\n").at(-1)).toBe(
        `... 10 more entries not shown (${LIST_FILES_MAX_ENTRIES + 10} in all); ` +
          "narrow the listing with a more specific pattern or a subdirectory"
      )
      const narrowed = yield* list({ directory: "many", pattern: "f000?.txt" }, crowded)
      expect(entries(narrowed.output)).toHaveLength(10)
      expect(String(narrowed.output)).not.toContain("more entries")
    }))

  it.effect("neither lists nor follows symlinks, and never reaches outside the workspace through one", () =>
    Effect.gen(function*() {
      const all = String((yield* list({ recursive: true })).output)
      expect(all).not.toContain("secret")
      expect(all).not.toMatch(/\bout\b|outfile|inlink/)
      // a pattern whose static part walks through the link: the link is not opened, with a note
      // (counting what lies behind it would read outside the workspace)
      const through = yield* list({ pattern: "out/*" })
      expect(through.success).toBe(true)
      expect(String(through.output)).not.toContain("secret")
      expect(String(through.output)).toBe(
        "No entries in the workspace root matching \"out/*\" (this level only).\n" +
          "(1 symbolic link leading out of the workspace not followed)"
      )
      const deeper = yield* list({ pattern: "out/**/*" })
      expect(String(deeper.output)).not.toContain("secret")
      // a link inside the workspace leads inside: listed under the link's name
      const inside = yield* list({ pattern: "inlink/*.ts" })
      expect(entries(inside.output)).toEqual(["[file] inlink/index.ts (10 bytes)", "[file] inlink/util.ts (1 bytes)"])
      expect(String(inside.output)).not.toContain("symbolic link")
    }))

  it.effect("a directory (or a link) leading out of the workspace is a PathTraversalError defect", () =>
    Effect.gen(function*() {
      for (const directory of ["../", "..", "out", outside, "src/../../outside"]) {
        const exit = yield* Effect.exit(list({ directory }))
        const traversal = traversalOf(exit)
        expect(Option.isSome(traversal), directory).toBe(true)
        expect(Option.getOrThrow(traversal).path).toBe(directory)
      }
    }))

  it.effect("a pattern that climbs out of the directory is refused", () =>
    Effect.gen(function*() {
      for (const pattern of ["../*", "../outside/*", "src/../../*", "{../outside/*,README.md}", `${outside}/*`]) {
        const r = yield* list({ pattern })
        expect(r.success, pattern).toBe(false)
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toContain("must be relative and must not contain \"..\"")
      }
    }))

  it.effect("a pattern picomatch will not compile is a TOOL_ERROR that says why, not a crash", () =>
    Effect.gen(function*() {
      const [r, lines] = yield* recordingLogs(list({ pattern: "a".repeat(70_000) }))
      expect(r).toMatchObject({
        success: false,
        errorCode: "TOOL_ERROR",
        error: "the pattern is not valid: Input length: 70000, exceeds maximum allowed length: 65536"
      })
      expect(lines.map(textOf).filter((line) => line.includes("died"))).toEqual([])
    }))

  it.effect("a pattern's escapes never reach above the directory: no entry from outside, same answer for any name", () =>
    Effect.gen(function*() {
      // `.\.` is a literal dot for picomatch: these name ../outside/..., which no path below the directory is
      const exists = yield* list({ pattern: ".\\./outside/s*" })
      const absent = yield* list({ pattern: ".\\./outside/q*" })
      expect(exists.success).toBe(true)
      expect(exists.output).toBe("No entries in the workspace root matching \".\\./outside/s*\" (this level only).")
      expect(String(absent.output)).toBe(String(exists.output).replace("s*", "q*"))
      const patterns = [
        ".\\./.\\./.\\./**/*",
        ".\\./outside/**",
        "\\.\\./outside/*",
        "src/.\\./.\\./outside/*",
        "[.][.]/outside/*",
        "{.,.}./outside/*",
        ".{.,}/outside/sub/*"
      ]
      for (const pattern of patterns) {
        for (const recursive of [false, true]) {
          const start = performance.now()
          const r = yield* list({ pattern, recursive })
          expect(performance.now() - start, pattern).toBeLessThan(3000)
          expect(String(r.output ?? r.error)).not.toContain("secret")
          if (pattern.startsWith("\\")) {
            // a leading backslash reads as an absolute Windows path: refused before any walk
            expect(r.error, pattern).toContain("must be relative")
            continue
          }
          expect(r.success, pattern).toBe(true)
          expect(entries(r.output), pattern).toEqual([])
        }
      }
    }))

  it.effect("a pattern naming a directory matches it, with or without a slash; one entry is 'entry'", () =>
    Effect.gen(function*() {
      const root = Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "list-small-")))
      Fs.mkdirSync(Path.join(root, "sub"))
      Fs.writeFileSync(Path.join(root, "sub", "x.txt"), "xy")
      Fs.writeFileSync(Path.join(root, "ba:b.txt"), "c")
      expect((yield* list({ pattern: "sub" }, root)).output).toBe(
        "1 entry in the workspace root matching \"sub\" (this level only):\n[dir]  sub/"
      )
      expect(entries((yield* list({ pattern: "*/" }, root)).output)).toEqual(["[dir]  sub/"])
      // a leading ./ is the directory itself
      expect(entries((yield* list({ pattern: "./sub/*.txt" }, root)).output)).toEqual(["[file] sub/x.txt (2 bytes)"])
      // a colon is an ordinary character (only a letter and a colon at the start is a drive)
      expect(entries((yield* list({ pattern: "ba:b*" }, root)).output)).toEqual(["[file] ba:b.txt (1 bytes)"])
      expect((yield* list({ pattern: "C:/x" }, root)).errorCode).toBe("TOOL_ERROR")
      Fs.rmSync(root, { recursive: true, force: true })
    }))

  it.effect("a missing directory or a file given as the directory is a clear error", () =>
    Effect.gen(function*() {
      const missing = yield* list({ directory: "nope" })
      expect(missing.success).toBe(false)
      expect(missing.errorCode).toBe("TOOL_ERROR")
      expect(missing.error).toBe("directory \"nope\" does not exist")
      const file = yield* list({ directory: "README.md" })
      expect(file.success).toBe(false)
      expect(file.errorCode).toBe("TOOL_ERROR")
      expect(file.error).toBe("\"README.md\" is a file, not a directory")
    }))

  it.effect("a FIFO or a socket is listed as [other] with its kind, not as a file, and never opened", () =>
    Effect.gen(function*() {
      const special = yield* tempDir("list-files-special-")
      ChildProcess.execFileSync("mkfifo", [Path.join(special, "pipe")])
      const server = Net.createServer()
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => {
          server.listen(Path.join(special, "sock"), () => resume(Effect.void))
        }),
        () =>
          Effect.callback<void>((resume) => {
            server.close(() => resume(Effect.void))
          })
      )
      Fs.writeFileSync(Path.join(special, "plain.txt"), "abc")
      const r = yield* list({}, special)
      expect(entries(r.output)).toEqual(["[other] pipe (FIFO)", "[file] plain.txt (3 bytes)", "[other] sock (socket)"])
    }).pipe(Effect.scoped))

  it.effect("rejects an empty pattern and a non-boolean recursive", () =>
    Effect.gen(function*() {
      expect((yield* list({ pattern: "" })).errorCode).toBe("INVALID_ARGUMENTS")
      expect((yield* list({ recursive: "yes" })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("is read-only, tagged files/builtin, with defaults in its schema", () =>
    Effect.sync(() => {
      expect(listFiles.spec.readOnly).toBe(true)
      expect(listFiles.tags).toEqual(["files", "builtin"])
      expect(listFiles.pathFields).toEqual(["directory"])
      expect(listFiles.spec.required).toEqual([])
      expect(listFiles.spec.parameters.properties).toMatchObject({
        directory: { type: "string", default: "." },
        pattern: { type: "string", default: "*" },
        recursive: { type: "boolean", default: false }
      })
    }))
})

/** A fresh workspace for a tree past PATH_MAX, removed with `rm` (`tempDir`'s `fs.rmSync` fails with ENAMETOOLONG there). */
const deepRoot = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), prefix)))),
    (root) => Effect.sync(() => ChildProcess.execFileSync("rm", ["-rf", root]))
  )

/**
 * A chain of directories under `root/top` whose path grows past PATH_MAX (4,096 bytes): the
 * directories at its end cannot be opened by path (ENAMETOOLONG), so a walk must skip them.
 * Made by bash (dash refuses a cd past PATH_MAX), going down one relative name at a time.
 */
const tooDeep = (root: string, top: string) => {
  const name = "d".repeat(240)
  ChildProcess.execFileSync("bash", ["-c", `mkdir "$1" && cd "$1" && for i in $(seq 1 18); do mkdir "$2" && cd "$2"; done && : > deep.txt`, "bash", Path.join(root, top), name])
}

describe("list_files: notes, kinds and patterns", () => {
  it.effect("a directory it cannot open is skipped and said so, in the singular and the plural", () =>
    Effect.gen(function*() {
      const root = yield* deepRoot("list-deep-")
      tooDeep(root, "one")
      Fs.writeFileSync(Path.join(root, "top.txt"), "t")
      expect((yield* list({ pattern: "*.txt", recursive: true }, root)).output).toBe(
        "1 entry in the workspace root matching \"*.txt\" (at any depth):\n" +
          "[file] top.txt (1 bytes)\n" +
          "(1 directory changed while being listed, or could not be read, and was skipped)"
      )
      tooDeep(root, "two")
      Fs.rmSync(Path.join(root, "top.txt"))
      expect((yield* list({ pattern: "*.txt", recursive: true }, root)).output).toBe(
        "No entries in the workspace root matching \"*.txt\" (at any depth).\n" +
          "(2 directories changed while being listed, or could not be read, and were skipped)"
      )
      // the directories above the cut are listed as usual
      const dirs = entries((yield* list({ pattern: "one/*" }, root)).output)
      expect(dirs).toEqual([`[dir]  one/${"d".repeat(240)}/`])
    }))

  it.effect("a file or a FIFO gone between the walk and its stat is still listed, without a size", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("list-gone-")
      Fs.writeFileSync(Path.join(root, "gone.txt"), "g")
      Fs.writeFileSync(Path.join(root, "kept.txt"), "k")
      ChildProcess.execFileSync("mkfifo", [Path.join(root, "pipe")])
      // the listing names its directory after the walk and before the sizes: the files go then
      const vanishing = Layer.effect(
        Workspace,
        Effect.map(Workspace, (workspace) => ({
          ...workspace,
          display: (absolute: string) =>
            Effect.andThen(
              Effect.sync(() => {
                Fs.rmSync(Path.join(root, "gone.txt"), { force: true })
                Fs.rmSync(Path.join(root, "pipe"), { force: true })
              }),
              workspace.display(absolute)
            )
        }))
      ).pipe(Layer.provide(Workspace.layerFixed(root)))
      const r = yield* Effect.flatMap(ToolSystem, (ts) => ts.execute("list_files", {})).pipe(
        Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [listFiles], workspace: vanishing }))
      )
      expect(r.output).toBe(
        "3 entries in the workspace root matching \"*\" (this level only):\n" +
          "[file] gone.txt (size unknown: \"gone.txt\" does not exist)\n" +
          "[file] kept.txt (1 bytes)\n" +
          "[other] pipe (not a regular file)"
      )
    }))

  it.effect("a special file given as the directory is named by its kind", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("list-fifo-")
      ChildProcess.execFileSync("mkfifo", [Path.join(root, "pipe")])
      const r = yield* list({ directory: "pipe" }, root)
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe("\"pipe\" is a FIFO, not a directory")
    }))

  it.effect("an escaped glob character in the pattern's fixed part names the directory literally", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("list-escaped-")
      Fs.mkdirSync(Path.join(root, "a*b"))
      Fs.mkdirSync(Path.join(root, "ab"))
      Fs.writeFileSync(Path.join(root, "a*b", "f.txt"), "f")
      Fs.writeFileSync(Path.join(root, "ab", "g.txt"), "g")
      expect(entries((yield* list({ pattern: "a\\*b/*.txt" }, root)).output)).toEqual(["[file] a*b/f.txt (1 bytes)"])
    }))

  it.effect("recursive puts a pattern that ends in **/ at any depth too", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("list-any-depth-")
      Fs.mkdirSync(Path.join(root, "src", "top"), { recursive: true })
      Fs.mkdirSync(Path.join(root, "lib", "src", "inner"), { recursive: true })
      expect(entries((yield* list({ pattern: "src/**/", recursive: true }, root)).output)).toEqual([
        "[dir]  lib/src/",
        "[dir]  lib/src/inner/",
        "[dir]  src/",
        "[dir]  src/top/"
      ])
      expect(entries((yield* list({ pattern: "src/**/" }, root)).output)).toEqual(["[dir]  src/", "[dir]  src/top/"])
    }))

  it.effect("only a link on the pattern's fixed part is followed: one beside it that leads out is not looked at", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("list-beside-")
      const away = yield* tempDir("list-away-")
      Fs.mkdirSync(Path.join(root, "a", "b"), { recursive: true })
      Fs.writeFileSync(Path.join(root, "a", "b", "c.txt"), "c")
      Fs.symlinkSync(away, Path.join(root, "a", "x"))
      expect((yield* list({ pattern: "a/b/*" }, root)).output).toBe(
        "1 entry in the workspace root matching \"a/b/*\" (this level only):\n[file] a/b/c.txt (1 bytes)"
      )
      expect((yield* list({ pattern: "a/x/*" }, root)).output).toBe(
        "No entries in the workspace root matching \"a/x/*\" (this level only).\n" +
          "(1 symbolic link leading out of the workspace not followed)"
      )
    }))
})
