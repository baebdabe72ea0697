import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { AgentMode, ToolSystem, Workspace } from "../../../src/index.js"
import type { ExecuteOptions } from "../../../src/index.js"
import { writeFile } from "../../../src/tools/builtin/writeFile.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

let base: string
let ws: string
let outside: string

beforeAll(() => {
  base = makeTempDirSync("write-file-")
  ws = Path.join(base, "ws")
  outside = Path.join(base, "outside")
  Fs.mkdirSync(Path.join(ws, "src"), { recursive: true })
  Fs.mkdirSync(Path.join(ws, "plans"))
  Fs.mkdirSync(outside)
  Fs.writeFileSync(Path.join(ws, "a-file"), "x")
  ChildProcess.execFileSync("mkfifo", [Path.join(ws, "fifo")])
})

afterAll(() => {
  Fs.rmSync(base, { recursive: true, force: true })
})

const write = (args: Record<string, unknown>, options: ExecuteOptions = { confirm: true }) =>
  Effect.gen(function*() {
    const tools = yield* ToolSystem
    return yield* tools.execute("write_file", args, options)
  }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [writeFile], workspace: Workspace.layerFixed(ws) })))

/** Every path below `dir`, relative to it. */
const tree = (dir: string) => Fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()

describe("write_file", () => {
  it.effect("creates the file and its parent directories, and says what it wrote", () =>
    Effect.gen(function*() {
      const r = yield* write({ filepath: "new/deep/dir/file.txt", content: "héllo\n" })
      expect(r.success).toBe(true)
      expect(r.output).toBe("Wrote 7 bytes to new/deep/dir/file.txt")
      expect(Fs.readFileSync(Path.join(ws, "new/deep/dir/file.txt"), "utf8")).toBe("héllo\n")
      expect(tree(Path.join(ws, "new"))).toEqual(["deep", "deep/dir", "deep/dir/file.txt"])
    }))

  it.effect("replaces an existing file, says so, and keeps its mode", () =>
    Effect.gen(function*() {
      const file = Path.join(ws, "src", "mode.sh")
      Fs.writeFileSync(file, "old content that is longer")
      Fs.chmodSync(file, 0o750)
      const r = yield* write({ filepath: "src/mode.sh", content: "new" })
      expect(r.output).toBe("Wrote 3 bytes to src/mode.sh (overwrote an existing file)")
      expect(Fs.readFileSync(file, "utf8")).toBe("new")
      expect(Fs.statSync(file).mode & 0o777).toBe(0o750)
      // a new file gets the usual mode (0666 less the umask)
      yield* write({ filepath: "src/fresh.txt", content: "" })
      const umask = process.umask()
      expect(Fs.statSync(Path.join(ws, "src", "fresh.txt")).mode & 0o777).toBe(0o666 & ~umask)
      // no temp file is left beside the targets
      expect(tree(Path.join(ws, "src")).filter((p) => p.endsWith(".tmp"))).toEqual([])
    }))

  it.effect("a directory, a FIFO, or a file in the way of a directory: clear errors, nothing changed", () =>
    Effect.gen(function*() {
      const dir = yield* write({ filepath: "src", content: "x" })
      expect(dir.errorCode).toBe("TOOL_ERROR")
      expect(dir.error).toBe("\"src\" is a directory")
      expect((yield* write({ filepath: ".", content: "x" })).error).toBe("\".\" is a directory")
      const fifo = yield* write({ filepath: "fifo", content: "x" }).pipe(Effect.timeout("5 seconds"))
      expect(fifo.error).toBe("\"fifo\" is a FIFO, not a regular file")
      expect(Fs.statSync(Path.join(ws, "fifo")).isFIFO()).toBe(true)
      const under = yield* write({ filepath: "a-file/x.txt", content: "x" })
      expect(under.error).toBe("\"a-file\" is not a directory")
      expect(Fs.readFileSync(Path.join(ws, "a-file"), "utf8")).toBe("x")
      for (const r of [dir, fifo, under]) expect(r.error).not.toContain(ws)
    }))

  it.effect("needs confirmation, and in plan mode writes only under plans/", () =>
    Effect.gen(function*() {
      const unconfirmed = yield* write({ filepath: "u.txt", content: "x" }, {})
      expect(unconfirmed.errorCode).toBe("CONFIRMATION_REQUIRED")
      expect(Fs.existsSync(Path.join(ws, "u.txt"))).toBe(false)
      const plan = yield* write({ filepath: "plans/p.md", content: "plan" }, { confirm: true, mode: AgentMode.Plan })
      expect(plan.output).toBe("Wrote 4 bytes to plans/p.md")
      const blocked = yield* write({ filepath: "src/p.md", content: "plan" }, { confirm: true, mode: AgentMode.Plan })
      expect(blocked.errorCode).toBe("MODE_BLOCKED")
      expect(Fs.existsSync(Path.join(ws, "src", "p.md"))).toBe(false)
    }))

  it.effect("a write through a symlinked directory inside the workspace lands in its real directory", () =>
    Effect.gen(function*() {
      Fs.symlinkSync("src", Path.join(ws, "src-link"))
      const r = yield* write({ filepath: "src-link/through.txt", content: "t" })
      expect(r.output).toBe("Wrote 1 bytes to src/through.txt")
      expect(Fs.readFileSync(Path.join(ws, "src", "through.txt"), "utf8")).toBe("t")
      expect(tree(outside)).toEqual([])
    }))

  it.effect("is a confirmed scoped write with a path field", () =>
    Effect.sync(() => {
      expect(writeFile.spec.readOnly).toBe(false)
      expect(writeFile.requiresConfirmation).toBe(true)
      expect(writeFile.scopedWrite).toBe(true)
      expect(writeFile.pathFields).toEqual(["filepath"])
    }))
})
