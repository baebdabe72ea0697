import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { AgentMode } from "../../../../src/index.js"
import { copyFile } from "../../../../src/tools/ported/editing/copyFile.js"
import { moveFile } from "../../../../src/tools/ported/editing/moveFile.js"
import { call, fingerprint, makeWorkspace, systemFor, text, traversalOf, tree } from "./harness.js"

const { outside, remove, ws } = makeWorkspace("move-copy-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)
const put = (rel: string, content: string | Uint8Array, mode?: number) => {
  Fs.mkdirSync(Path.dirname(at(rel)), { recursive: true })
  Fs.writeFileSync(at(rel), content)
  if (mode !== undefined) Fs.chmodSync(at(rel), mode)
}
const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0xff, 0xfe, 10, 13])

describe("move_file", () => {
  layer(systemFor(ws))((it) => {
    it.effect("has two checked path parameters and is a scoped write", () =>
      Effect.sync(() => {
        expect(moveFile.pathFields).toEqual(["source", "destination"])
        expect(moveFile.scopedWrite).toBe(true)
        expect(moveFile.requiresConfirmation).toBe(false)
        expect(moveFile.spec.readOnly).toBe(false)
      }))

    it.effect("renames a file (the same inode, bytes and mode), creating the destination's directories", () =>
      Effect.gen(function*() {
        put("src/m.bin", BINARY, 0o700)
        const before = fingerprint(at("src/m.bin"))
        const r = yield* call("move_file", { source: "src/m.bin", destination: "lib/deep/m2.bin" })
        expect(r.output).toBe("Moved src/m.bin to lib/deep/m2.bin")
        expect(Fs.existsSync(at("src/m.bin"))).toBe(false)
        expect(fingerprint(at("lib/deep/m2.bin"))).toEqual(before)
      }))

    it.effect("an existing destination: an error unless overwrite; a directory there is never replaced", () =>
      Effect.gen(function*() {
        put("src/a.txt", "A")
        put("src/b.txt", "B")
        const [a, b] = [fingerprint(at("src/a.txt")), fingerprint(at("src/b.txt"))]
        const refused = yield* call("move_file", { source: "src/a.txt", destination: "src/b.txt" })
        expect(refused.error).toBe("\"src/b.txt\" already exists (a file); pass overwrite: true to replace it; nothing was moved")
        expect([fingerprint(at("src/a.txt")), fingerprint(at("src/b.txt"))]).toEqual([a, b])
        const dir = yield* call("move_file", { source: "src/a.txt", destination: "plans", overwrite: true })
        expect(dir.error).toBe(
          "\"plans\" is an existing directory; name the full destination path, e.g. \"plans/a.txt\"; nothing was moved"
        )
        const replaced = yield* call("move_file", { source: "src/a.txt", destination: "src/b.txt", overwrite: true })
        expect(replaced.output).toBe("Moved src/a.txt to src/b.txt (replaced an existing file)")
        expect(text(at("src/b.txt"))).toBe("A")
        expect(Fs.existsSync(at("src/a.txt"))).toBe(false)
      }))

    it.effect("moves a directory with its content; never into itself", () =>
      Effect.gen(function*() {
        put("pkg/one/x.txt", "x")
        put("pkg/one/sub/y.txt", "y")
        const into = yield* call("move_file", { source: "pkg/one", destination: "pkg/one/sub/two" })
        expect(into.error).toBe("\"pkg/one/sub/two\" is inside \"pkg/one\": a directory cannot be moved into itself; nothing was moved")
        const r = yield* call("move_file", { source: "pkg/one", destination: "pkg/two" })
        expect(r.output).toBe("Moved directory pkg/one to pkg/two")
        expect(tree(at("pkg"))).toEqual(["two", "two/sub", "two/sub/y.txt", "two/x.txt"])
        const root = yield* call("move_file", { source: ".", destination: "pkg/root" })
        expect(root.error).toBe("\".\" is the workspace root; it cannot be moved; nothing was moved")
      }))

    it.effect("a missing source, the same path twice: clear errors", () =>
      Effect.gen(function*() {
        expect((yield* call("move_file", { source: "src/none", destination: "src/n2" })).error).toBe(
          "\"src/none\" does not exist; nothing was moved"
        )
        put("src/same.txt", "s")
        expect((yield* call("move_file", { source: "src/same.txt", destination: "./src/same.txt" })).error).toBe(
          "\"src/same.txt\" is both the source and the destination; nothing was moved"
        )
        expect(text(at("src/same.txt"))).toBe("s")
      }))

    it.effect("either path leading out of the workspace is a PATH_TRAVERSAL defect, nothing moved", () =>
      Effect.gen(function*() {
        put("src/stay.txt", "stay")
        Fs.writeFileSync(Path.join(outside, "o.txt"), "o")
        const cases = [
          { source: "src/stay.txt", destination: "../outside/taken.txt" },
          { source: "../outside/o.txt", destination: "src/o.txt" },
          { source: Path.join(outside, "o.txt"), destination: "src/o.txt" }
        ]
        for (const args of cases) {
          expect(Option.isSome(traversalOf(yield* Effect.exit(call("move_file", args)))), JSON.stringify(args)).toBe(true)
          expect(Option.isSome(traversalOf(yield* Effect.exit(call("copy_file", args)))), JSON.stringify(args)).toBe(true)
        }
        expect(text(at("src/stay.txt"))).toBe("stay")
        expect(tree(outside)).toEqual(["o.txt"])
      }))

    it.effect("plan mode: src/ to plans/ is MODE_BLOCKED (the source is outside plans/), plans/a to plans/b passes", () =>
      Effect.gen(function*() {
        put("src/plan-src.md", "s")
        put("plans/a.md", "a")
        const plan = { mode: AgentMode.Plan }
        const blocked = yield* call("move_file", { source: "src/plan-src.md", destination: "plans/x.md" }, plan)
        expect(blocked.errorCode).toBe("MODE_BLOCKED")
        expect(blocked.error).toContain("\"src/plan-src.md\" is outside the writable directories")
        const out = yield* call("move_file", { source: "plans/a.md", destination: "src/a.md" }, plan)
        expect(out.errorCode).toBe("MODE_BLOCKED")
        expect(Fs.existsSync(at("src/plan-src.md")) && Fs.existsSync(at("plans/a.md"))).toBe(true)
        const inside = yield* call("move_file", { source: "plans/a.md", destination: "plans/b.md" }, plan)
        expect(inside.output).toBe("Moved plans/a.md to plans/b.md")
        expect((yield* call("move_file", { source: "plans/b.md", destination: "plans/c.md" }, { mode: AgentMode.Explore })).errorCode)
          .toBe("MODE_BLOCKED")
      }))
  })
})

describe("copy_file", () => {
  layer(systemFor(ws))((it) => {
    it.effect("has two checked path parameters and is a scoped write", () =>
      Effect.sync(() => {
        expect(copyFile.pathFields).toEqual(["source", "destination"])
        expect(copyFile.scopedWrite).toBe(true)
      }))

    it.effect("copies bytes exactly (binary too) with the source's permission bits, and leaves no temp file", () =>
      Effect.gen(function*() {
        put("src/c.bin", BINARY, 0o751)
        const r = yield* call("copy_file", { source: "src/c.bin", destination: "copies/c.bin" })
        expect(r.output).toBe(`Copied src/c.bin to copies/c.bin (${BINARY.length} bytes)`)
        expect(Fs.readFileSync(at("copies/c.bin"))).toEqual(BINARY)
        expect(Fs.statSync(at("copies/c.bin")).mode & 0o777).toBe(0o751)
        expect(Fs.readFileSync(at("src/c.bin"))).toEqual(BINARY)
        expect(tree(at("copies"))).toEqual(["c.bin"])
        put("src/e.txt", "")
        yield* call("copy_file", { source: "src/e.txt", destination: "copies/e.txt" })
        expect(Fs.readFileSync(at("copies/e.txt")).length).toBe(0)
      }))

    it.effect("an existing destination: an error unless overwrite, which keeps the destination's mode", () =>
      Effect.gen(function*() {
        put("src/new.txt", "new", 0o644)
        put("src/old.txt", "old", 0o600)
        const before = fingerprint(at("src/old.txt"))
        const refused = yield* call("copy_file", { source: "src/new.txt", destination: "src/old.txt" })
        expect(refused.error).toBe("\"src/old.txt\" already exists (a file); pass overwrite: true to replace it; nothing was copied")
        expect(fingerprint(at("src/old.txt"))).toEqual(before)
        const r = yield* call("copy_file", { source: "src/new.txt", destination: "src/old.txt", overwrite: true })
        expect(r.output).toBe("Copied src/new.txt to src/old.txt (3 bytes, replaced an existing file)")
        expect(text(at("src/old.txt"))).toBe("new")
        expect(Fs.statSync(at("src/old.txt")).mode & 0o777).toBe(0o600)
        expect(tree(at("src")).filter((f) => f.startsWith("."))).toEqual([])
      }))

    it.effect("a directory as source or destination, a missing source, the same path: clear errors", () =>
      Effect.gen(function*() {
        put("src/f.txt", "f")
        expect((yield* call("copy_file", { source: "src", destination: "src2" })).error).toBe(
          "src is a directory; copy_file copies files only; nothing was copied"
        )
        expect((yield* call("copy_file", { source: "src/f.txt", destination: "plans", overwrite: true })).error).toBe(
          "plans is an existing directory; name the full path of the copy, e.g. \"plans/f.txt\"; nothing was copied"
        )
        expect((yield* call("copy_file", { source: "src/missing", destination: "src/m2" })).error).toBe(
          "\"src/missing\" does not exist; nothing was copied"
        )
        expect((yield* call("copy_file", { source: "src/f.txt", destination: "src/f.txt" })).error).toBe(
          "src/f.txt is both the source and the destination; nothing was copied"
        )
        expect(Fs.existsSync(at("src2"))).toBe(false)
      }))

    it.effect("plan mode: only when both paths lie under plans/", () =>
      Effect.gen(function*() {
        put("plans/p.md", "p")
        put("src/s.md", "s")
        const plan = { mode: AgentMode.Plan }
        expect((yield* call("copy_file", { source: "src/s.md", destination: "plans/s.md" }, plan)).errorCode).toBe("MODE_BLOCKED")
        expect((yield* call("copy_file", { source: "plans/p.md", destination: "src/p.md" }, plan)).errorCode).toBe("MODE_BLOCKED")
        expect(Fs.existsSync(at("plans/s.md")) || Fs.existsSync(at("src/p.md"))).toBe(false)
        expect((yield* call("copy_file", { source: "plans/p.md", destination: "plans/q.md" }, plan)).success).toBe(true)
        expect(text(at("plans/q.md"))).toBe("p")
      }))

    it.effect("concurrent copies to one destination without overwrite: exactly one wins, the others are refused", () =>
      Effect.gen(function*() {
        for (let i = 0; i < 6; i++) put(`race/s${i}.txt`, `source ${i}`)
        const results = yield* Effect.all(
          Array.from({ length: 6 }, (_, i) => call("copy_file", { source: `race/s${i}.txt`, destination: "race/target.txt" })),
          { concurrency: "unbounded" }
        )
        expect(results.filter((r) => r.success)).toHaveLength(1)
        expect(results.filter((r) => !r.success).every((r) => r.error?.includes("already exists"))).toBe(true)
        expect(text(at("race/target.txt"))).toMatch(/^source \d$/)
        expect(tree(at("race")).filter((f) => f.startsWith("."))).toEqual([])
      }))
  })
})
