import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { AgentMode } from "../../../../src/index.js"
import { call, fingerprint, makeWorkspace, systemFor, text, traversalOf } from "./harness.js"

const { remove, ws } = makeWorkspace("line-edits-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)
const put = (rel: string, content: string | Uint8Array, mode?: number) => {
  Fs.mkdirSync(Path.dirname(at(rel)), { recursive: true })
  Fs.writeFileSync(at(rel), content)
  if (mode !== undefined) Fs.chmodSync(at(rel), mode)
}

describe("edit_file_line and remove_line_range", () => {
  layer(systemFor(ws))((it) => {
    it.effect("edit_file_line replaces one line, keeping its ending, the file's final newline and mode", () =>
      Effect.gen(function*() {
        put("src/e.txt", "a\nb\nc", 0o751)
        const r = yield* call("edit_file_line", { filepath: "src/e.txt", line_number: 2, new_content: "B" })
        expect(r.output).toBe("Replaced line 2 of src/e.txt")
        expect(text(at("src/e.txt"))).toBe("a\nB\nc")
        yield* call("edit_file_line", { filepath: "src/e.txt", line_number: 3, new_content: "C\n" })
        expect(text(at("src/e.txt"))).toBe("a\nB\nC")
        const multi = yield* call("edit_file_line", { filepath: "src/e.txt", line_number: 1, new_content: "a1\na2" })
        expect(multi.output).toBe("Replaced line 1 of src/e.txt with 2 lines (now 4 lines)")
        expect(text(at("src/e.txt"))).toBe("a1\na2\nB\nC")
        yield* call("edit_file_line", { filepath: "src/e.txt", line_number: 3, new_content: "" })
        expect(text(at("src/e.txt"))).toBe("a1\na2\n\nC")
        expect(Fs.statSync(at("src/e.txt")).mode & 0o777).toBe(0o751)
      }))

    it.effect("edit_file_line on CRLF and unicode", () =>
      Effect.gen(function*() {
        put("src/w.txt", "α\r\nβ\r\nγ\r\n")
        yield* call("edit_file_line", { filepath: "src/w.txt", line_number: 2, new_content: "😀\nβ2" })
        expect(text(at("src/w.txt"))).toBe("α\r\n😀\r\nβ2\r\nγ\r\n")
        // a BOM is not part of line 1: replacing or removing the line keeps it
        put("src/bom.txt", "\uFEFFfirst\nsecond\n")
        yield* call("edit_file_line", { filepath: "src/bom.txt", line_number: 1, new_content: "1st" })
        expect(Fs.readFileSync(at("src/bom.txt"))).toEqual(Buffer.from("\uFEFF1st\nsecond\n"))
        yield* call("remove_line_range", { filepath: "src/bom.txt", start_line: 1, end_line: 1 })
        expect(Fs.readFileSync(at("src/bom.txt"))).toEqual(Buffer.from("\uFEFFsecond\n"))
      }))

    it.effect("edit_file_line out of range, on an empty file: clear errors, the file untouched", () =>
      Effect.gen(function*() {
        put("src/short.txt", "one\ntwo\n")
        put("src/empty.txt", "")
        const before = [fingerprint(at("src/short.txt")), fingerprint(at("src/empty.txt"))]
        expect((yield* call("edit_file_line", { filepath: "src/short.txt", line_number: 3, new_content: "x" })).error).toBe(
          "line_number 3 is out of range: src/short.txt has 2 lines (1-2)"
        )
        expect((yield* call("edit_file_line", { filepath: "src/short.txt", line_number: 0, new_content: "x" })).errorCode).toBe(
          "INVALID_ARGUMENTS"
        )
        expect((yield* call("edit_file_line", { filepath: "src/empty.txt", line_number: 1, new_content: "x" })).error).toBe(
          "line_number 1 is out of range: src/empty.txt is empty (use insert_lines or append_to_file to add lines)"
        )
        expect([fingerprint(at("src/short.txt")), fingerprint(at("src/empty.txt"))]).toEqual(before)
      }))

    it.effect("remove_line_range removes an inclusive range; through the end a missing final newline stays missing", () =>
      Effect.gen(function*() {
        put("src/r.txt", "1\n2\n3\n4\n5")
        const r = yield* call("remove_line_range", { filepath: "src/r.txt", start_line: 2, end_line: 3 })
        expect(r.output).toBe("Removed 2 lines (2-3) from src/r.txt (now 3 lines)")
        expect(text(at("src/r.txt"))).toBe("1\n4\n5")
        yield* call("remove_line_range", { filepath: "src/r.txt", start_line: 3, end_line: 3 })
        expect(text(at("src/r.txt"))).toBe("1\n4")
        yield* call("remove_line_range", { filepath: "src/r.txt", start_line: 1, end_line: 2 })
        expect(text(at("src/r.txt"))).toBe("")

        put("src/rc.txt", "a\r\nb\r\nc\r\n")
        yield* call("remove_line_range", { filepath: "src/rc.txt", start_line: 3, end_line: 3 })
        expect(text(at("src/rc.txt"))).toBe("a\r\nb\r\n")
      }))

    it.effect("remove_line_range out of range or reversed: clear errors, the file untouched", () =>
      Effect.gen(function*() {
        put("src/keep.txt", "a\nb\nc\n")
        const before = fingerprint(at("src/keep.txt"))
        expect((yield* call("remove_line_range", { filepath: "src/keep.txt", start_line: 2, end_line: 4 })).error).toBe(
          "lines 2-4 are out of range: src/keep.txt has 3 lines (1-3)"
        )
        expect((yield* call("remove_line_range", { filepath: "src/keep.txt", start_line: 3, end_line: 2 })).error).toBe(
          "start_line 3 is after end_line 2; nothing was removed"
        )
        expect(fingerprint(at("src/keep.txt"))).toEqual(before)
      }))

    it.effect("binary, directory, missing, outside: errors and defects as for every editing tool", () =>
      Effect.gen(function*() {
        put("src/bin", Buffer.from([0, 0, 0, 10]))
        const before = fingerprint(at("src/bin"))
        for (const [name, args] of [
          ["edit_file_line", { line_number: 1, new_content: "x" }],
          ["remove_line_range", { start_line: 1, end_line: 1 }]
        ] as const) {
          expect((yield* call(name, { filepath: "src/bin", ...args })).error).toContain("is a binary file")
          expect((yield* call(name, { filepath: "src", ...args })).error).toBe("\"src\" is a directory, not a file")
          expect((yield* call(name, { filepath: "gone.txt", ...args })).error).toBe("\"gone.txt\" does not exist")
          const exit = yield* Effect.exit(call(name, { filepath: "../x.txt", ...args }))
          expect(Option.isSome(traversalOf(exit)), name).toBe(true)
        }
        expect(fingerprint(at("src/bin"))).toEqual(before)
      }))

    it.effect("concurrent line edits of one file are serialized: none is lost", () =>
      Effect.gen(function*() {
        const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`)
        put("src/many.txt", `${lines.join("\n")}\n`)
        const edits = lines.map((_, i) =>
          call("edit_file_line", { filepath: "src/many.txt", line_number: i + 1, new_content: `edited ${i}` })
        )
        const results = yield* Effect.all(edits, { concurrency: "unbounded" })
        expect(results.every((r) => r.success)).toBe(true)
        expect(text(at("src/many.txt"))).toBe(`${lines.map((_, i) => `edited ${i}`).join("\n")}\n`)
      }))

    it.effect("plan mode: allowed under plans/ only", () =>
      Effect.gen(function*() {
        put("plans/p.txt", "a\nb\n")
        const plan = { mode: AgentMode.Plan }
        expect((yield* call("edit_file_line", { filepath: "plans/p.txt", line_number: 1, new_content: "A" }, plan)).success).toBe(true)
        expect((yield* call("remove_line_range", { filepath: "plans/p.txt", start_line: 2, end_line: 2 }, plan)).success).toBe(true)
        expect(text(at("plans/p.txt"))).toBe("A\n")
        put("src/s.txt", "a\n")
        expect((yield* call("edit_file_line", { filepath: "src/s.txt", line_number: 1, new_content: "A" }, plan)).errorCode).toBe(
          "MODE_BLOCKED"
        )
        expect(text(at("src/s.txt"))).toBe("a\n")
      }))
  })
})
