import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { AgentMode } from "../../../../src/index.js"
import { lockedPathCount } from "../../../../src/tools/shared/pathLock.js"
import { call, fingerprint, makeWorkspace, systemFor, text, traversalOf } from "./harness.js"

const { outside, remove, ws } = makeWorkspace("append-insert-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)
const put = (rel: string, content: string | Uint8Array, mode?: number) => {
  Fs.mkdirSync(Path.dirname(at(rel)), { recursive: true })
  Fs.writeFileSync(at(rel), content)
  if (mode !== undefined) Fs.chmodSync(at(rel), mode)
}

describe("append_to_file and insert_lines", () => {
  layer(systemFor(ws))((it) => {
    it.effect("append_to_file creates a missing file and its directories with the content as given", () =>
      Effect.gen(function*() {
        const r = yield* call("append_to_file", { filepath: "new/deep/log.txt", content: "first" })
        expect(r.output).toBe("Created new/deep/log.txt with 5 bytes")
        expect(text(at("new/deep/log.txt"))).toBe("first")
      }))

    it.effect("append_to_file adds whole lines and keeps the final newline, or its lack, and CRLF", () =>
      Effect.gen(function*() {
        put("src/lf.txt", "a\nb\n")
        const r = yield* call("append_to_file", { filepath: "src/lf.txt", content: "c\nd" })
        expect(r.output).toBe("Appended 2 lines to src/lf.txt (now 4 lines)")
        expect(text(at("src/lf.txt"))).toBe("a\nb\nc\nd\n")

        put("src/nofinal.txt", "a\nb")
        yield* call("append_to_file", { filepath: "src/nofinal.txt", content: "c\n" })
        expect(text(at("src/nofinal.txt"))).toBe("a\nb\nc")

        put("src/crlf.txt", "a\r\nb\r\n")
        yield* call("append_to_file", { filepath: "src/crlf.txt", content: "c\nd\n" })
        expect(text(at("src/crlf.txt"))).toBe("a\r\nb\r\nc\r\nd\r\n")

        put("src/one-line", "only")
        yield* call("append_to_file", { filepath: "src/one-line", content: "next" })
        expect(text(at("src/one-line"))).toBe("only\nnext")
      }))

    it.effect("append_to_file: an empty file takes the content as is; empty content changes nothing", () =>
      Effect.gen(function*() {
        put("src/empty.txt", "")
        yield* call("append_to_file", { filepath: "src/empty.txt", content: "x\r\ny" })
        expect(text(at("src/empty.txt"))).toBe("x\r\ny")
        put("src/same.txt", "keep\n")
        const before = fingerprint(at("src/same.txt"))
        const r = yield* call("append_to_file", { filepath: "src/same.txt", content: "" })
        expect(r.output).toBe("Nothing to append: content is empty; src/same.txt is unchanged")
        expect(fingerprint(at("src/same.txt"))).toEqual(before)
      }))

    it.effect("unicode and a BOM survive; the mode is kept", () =>
      Effect.gen(function*() {
        put("src/run.sh", "\uFEFF#!/bin/sh\necho héllo\n", 0o750)
        yield* call("append_to_file", { filepath: "src/run.sh", content: "echo 😀 中文" })
        expect(Fs.readFileSync(at("src/run.sh"))).toEqual(Buffer.from("\uFEFF#!/bin/sh\necho héllo\necho 😀 中文\n"))
        expect(Fs.statSync(at("src/run.sh")).mode & 0o777).toBe(0o750)
        yield* call("insert_lines", { filepath: "src/run.sh", line_number: 2, content: "set -e" })
        expect(text(at("src/run.sh"))).toBe("\uFEFF#!/bin/sh\nset -e\necho héllo\necho 😀 中文\n")
        expect(Fs.statSync(at("src/run.sh")).mode & 0o777).toBe(0o750)
      }))

    it.effect("a binary file, invalid UTF-8, a directory, a FIFO: clear errors and nothing changed", () =>
      Effect.gen(function*() {
        put("src/blob.bin", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 10]))
        // valid text at the start, an invalid byte far past the first block
        put("src/late.txt", Buffer.concat([Buffer.alloc(100_000, 0x61), Buffer.from([0xff, 0x0a])]))
        const files = ["src/blob.bin", "src/late.txt"].map((f) => [f, fingerprint(at(f))] as const)
        for (const [file] of files) {
          const a = yield* call("append_to_file", { filepath: file, content: "x" })
          expect(a.errorCode).toBe("TOOL_ERROR")
          expect(a.error).toMatch(new RegExp(`^"${file}" is a binary file \\(\\d+ bytes\\), not UTF-8 text; it was not changed$`))
          const i = yield* call("insert_lines", { filepath: file, line_number: 1, content: "x" })
          expect(i.error).toContain("is a binary file")
        }
        for (const [file, before] of files) expect(fingerprint(at(file))).toEqual(before)
        ChildProcess.execFileSync("mkfifo", [at("src/pipe")])
        const fifo = yield* call("append_to_file", { filepath: "src/pipe", content: "x" }).pipe(Effect.timeout("5 seconds"))
        expect(fifo.error).toBe("\"src/pipe\" is a FIFO, not a regular file; it was not read")
        expect(Fs.statSync(at("src/pipe")).isFIFO()).toBe(true)
        const dir = yield* call("append_to_file", { filepath: "src", content: "x" })
        expect(dir.error).toBe("\"src\" is a directory, not a file")
        const missing = yield* call("insert_lines", { filepath: "src/missing.txt", line_number: 1, content: "x" })
        expect(missing.error).toBe("\"src/missing.txt\" does not exist")
        expect(Fs.existsSync(at("src/missing.txt"))).toBe(false)
      }))

    it.effect("insert_lines inserts before a line, and line count + 1 appends (a final newline's lack kept)", () =>
      Effect.gen(function*() {
        put("src/ins.txt", "one\ntwo\nthree")
        const first = yield* call("insert_lines", { filepath: "src/ins.txt", line_number: 1, content: "zero\n" })
        expect(first.output).toBe("Inserted 1 line before line 1 of src/ins.txt (now 4 lines)")
        expect(text(at("src/ins.txt"))).toBe("zero\none\ntwo\nthree")
        yield* call("insert_lines", { filepath: "src/ins.txt", line_number: 3, content: "1.5a\n1.5b" })
        expect(text(at("src/ins.txt"))).toBe("zero\none\n1.5a\n1.5b\ntwo\nthree")
        const end = yield* call("insert_lines", { filepath: "src/ins.txt", line_number: 7, content: "four" })
        expect(end.output).toBe("Inserted 1 line at the end of src/ins.txt (now 7 lines)")
        expect(text(at("src/ins.txt"))).toBe("zero\none\n1.5a\n1.5b\ntwo\nthree\nfour")

        put("src/ins-crlf.txt", "a\r\nc\r\n")
        yield* call("insert_lines", { filepath: "src/ins-crlf.txt", line_number: 2, content: "b" })
        expect(text(at("src/ins-crlf.txt"))).toBe("a\r\nb\r\nc\r\n")
        put("src/ins-empty.txt", "")
        yield* call("insert_lines", { filepath: "src/ins-empty.txt", line_number: 1, content: "x\n" })
        expect(text(at("src/ins-empty.txt"))).toBe("x\n")
      }))

    it.effect("insert_lines out of range: an argument error or a clear error, the file untouched", () =>
      Effect.gen(function*() {
        put("src/range.txt", "a\nb\n")
        const before = fingerprint(at("src/range.txt"))
        const zero = yield* call("insert_lines", { filepath: "src/range.txt", line_number: 0, content: "x" })
        expect(zero.errorCode).toBe("INVALID_ARGUMENTS")
        const far = yield* call("insert_lines", { filepath: "src/range.txt", line_number: 4, content: "x" })
        expect(far.error).toBe(
          "line_number 4 is out of range: src/range.txt has 2 lines, so it must be between 1 and 3 (3 appends at the end)"
        )
        const empty = yield* call("insert_lines", { filepath: "src/ins-empty.txt", line_number: 3, content: "x" })
        expect(empty.error).toContain("has 1 line, so it must be between 1 and 2")
        expect(fingerprint(at("src/range.txt"))).toEqual(before)
      }))

    it.effect("20 concurrent appends and 20 concurrent inserts to one file: every line is there", () =>
      Effect.gen(function*() {
        put("src/busy.txt", "start\n")
        const appends = Array.from({ length: 20 }, (_, i) => call("append_to_file", { filepath: "src/busy.txt", content: `append ${i}` }))
        const inserts = Array.from({ length: 20 }, (_, i) =>
          call("insert_lines", { filepath: "src/busy.txt", line_number: 1, content: `insert ${i}` }))
        const results = yield* Effect.all([...appends, ...inserts], { concurrency: "unbounded" })
        expect(results.every((r) => r.success)).toBe(true)
        const lines = text(at("src/busy.txt")).split("\n")
        expect(lines).toHaveLength(42)
        expect(lines.at(-1)).toBe("")
        expect(lines).toContain("start")
        for (let i = 0; i < 20; i++) {
          expect(lines).toContain(`append ${i}`)
          expect(lines).toContain(`insert ${i}`)
        }
        // the lock table does not keep paths that are no longer in use
        expect(lockedPathCount()).toBe(0)
        // and no temp file is left beside the file
        expect(Fs.readdirSync(at("src")).filter((f) => f.startsWith("."))).toEqual([])
      }))

    it.effect("a path leading out of the workspace is a PATH_TRAVERSAL defect, and nothing is written outside", () =>
      Effect.gen(function*() {
        Fs.writeFileSync(Path.join(outside, "victim.txt"), "v\n")
        Fs.symlinkSync(outside, at("src/out-link"))
        for (const filepath of ["../outside/victim.txt", Path.join(outside, "victim.txt"), "src/out-link/victim.txt"]) {
          for (const [name, args] of [
            ["append_to_file", { filepath, content: "x" }],
            ["insert_lines", { filepath, line_number: 1, content: "x" }]
          ] as const) {
            const exit = yield* Effect.exit(call(name, args))
            expect(Option.isSome(traversalOf(exit)), `${name} ${filepath}`).toBe(true)
          }
        }
        expect(text(Path.join(outside, "victim.txt"))).toBe("v\n")
      }))

    it.effect("plan mode lets them write under plans/ only", () =>
      Effect.gen(function*() {
        const plan = { mode: AgentMode.Plan, confirm: true }
        expect((yield* call("append_to_file", { filepath: "plans/p.md", content: "# plan" }, plan)).success).toBe(true)
        expect((yield* call("insert_lines", { filepath: "plans/p.md", line_number: 1, content: "top" }, plan)).success).toBe(true)
        expect(text(at("plans/p.md"))).toBe("top\n# plan")
        const blocked = yield* call("append_to_file", { filepath: "src/lf.txt", content: "x" }, plan)
        expect(blocked.errorCode).toBe("MODE_BLOCKED")
        const explore = yield* call("append_to_file", { filepath: "plans/p.md", content: "x" }, { mode: AgentMode.Explore })
        expect(explore.errorCode).toBe("MODE_BLOCKED")
      }))
  })
})
