import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../../src/index.js"
import { READ_FILE_COUNT_BYTES, READ_FILE_MAX_BYTES, readFile } from "../../../src/tools/builtin/readFile.js"
import { underMutationTesting } from "../../helpers/portedRunner.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

let ws: string

const write = (rel: string, content: string | Uint8Array) => {
  const file = Path.join(ws, rel)
  Fs.mkdirSync(Path.dirname(file), { recursive: true })
  Fs.writeFileSync(file, content)
}

/** Writes `total` bytes made of `piece` repeated, one MiB at a time (no big buffer in memory). */
const writeRepeated = (rel: string, piece: Buffer, total: number) => {
  const chunk = Buffer.alloc(1024 * 1024)
  for (let i = 0; i < chunk.length; i++) chunk[i] = piece[i % piece.length] ?? 0
  const fd = Fs.openSync(Path.join(ws, rel), "w")
  try {
    for (let written = 0; written < total; written += chunk.length) {
      Fs.writeSync(fd, chunk, 0, Math.min(chunk.length, total - written))
    }
  } finally {
    Fs.closeSync(fd)
  }
}

beforeAll(() => {
  ws = makeTempDirSync("read-file-")
  write("notes.txt", "one\ntwo\nthree\n")
  write("no-final-newline.txt", "a\nb\nc")
  write("empty.txt", "")
  write("src/index.ts", "export {}\n")
  write("bin.dat", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x01]))
  write("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
  ChildProcess.execFileSync("mkfifo", [Path.join(ws, "fifo")])
})

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

const read = (args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const tools = yield* ToolSystem
    return yield* tools.execute("read_file", args)
  }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [readFile], workspace: Workspace.layerFixed(ws) })))

/** Peak growth of the heap (with Buffers) and of the resident set while `effect` runs, in MiB. */
const measured = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const before = process.memoryUsage()
    let heap = 0
    let rss = 0
    const sample = () => {
      const now = process.memoryUsage()
      heap = Math.max(heap, now.heapUsed + now.external - before.heapUsed - before.external)
      rss = Math.max(rss, now.rss - before.rss)
    }
    const start = performance.now()
    return Effect.acquireUseRelease(
      Effect.sync(() => setInterval(sample, 5)),
      () => effect,
      (timer) => Effect.sync(() => (clearInterval(timer), sample()))
    ).pipe(
      Effect.map((value) => ({
        value,
        heapMb: Math.round(heap / 2 ** 20),
        rssMb: Math.round(rss / 2 ** 20),
        ms: Math.round(performance.now() - start)
      })),
      Effect.tap(({ heapMb, ms, rssMb }) =>
        Effect.sync(() => {
          if (process.env.SAFE_FS_REPORT === "1") process.stderr.write(`memory: heap +${heapMb} MiB, rss +${rssMb} MiB, ${ms} ms\n`)
        })
      )
    )
  })

const MB = 1024 * 1024

describe("read_file", () => {
  it.effect("reads a text file whole", () =>
    Effect.gen(function*() {
      const r = yield* read({ filepath: "notes.txt" })
      expect(r.success).toBe(true)
      expect(r.output).toBe("one\ntwo\nthree\n")
      expect((yield* read({ filepath: "empty.txt" })).output).toBe("")
    }))

  it.effect("max_lines returns the first lines and says how many more there are", () =>
    Effect.gen(function*() {
      expect((yield* read({ filepath: "notes.txt", max_lines: 1 })).output).toBe("one\n... (2 more lines)")
      expect((yield* read({ filepath: "notes.txt", max_lines: 2 })).output).toBe("one\ntwo\n... (1 more lines)")
      // as many lines as the file has, or more: the file as it is
      expect((yield* read({ filepath: "notes.txt", max_lines: 3 })).output).toBe("one\ntwo\nthree\n")
      expect((yield* read({ filepath: "notes.txt", max_lines: 99 })).output).toBe("one\ntwo\nthree\n")
      expect((yield* read({ filepath: "no-final-newline.txt", max_lines: 1 })).output).toBe("a\n... (2 more lines)")
      expect((yield* read({ filepath: "no-final-newline.txt", max_lines: 3 })).output).toBe("a\nb\nc")
      expect((yield* read({ filepath: "empty.txt", max_lines: 1 })).output).toBe("")
      expect((yield* read({ filepath: "notes.txt", max_lines: 0 })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("a missing file, a directory, a FIFO: clear errors with workspace-relative paths", () =>
    Effect.gen(function*() {
      const missing = yield* read({ filepath: "missing.txt" })
      expect(missing.errorCode).toBe("TOOL_ERROR")
      expect(missing.error).toBe("\"missing.txt\" does not exist")
      const dir = yield* read({ filepath: "src" })
      expect(dir.error).toBe("\"src\" is a directory, not a file")
      // opened non-blocking and refused by what fstat says: no writer needed, no hang
      const fifo = yield* read({ filepath: "fifo" }).pipe(Effect.timeout("5 seconds"))
      expect(fifo.errorCode).toBe("TOOL_ERROR")
      expect(fifo.error).toBe("\"fifo\" is a FIFO, not a regular file; it was not read")
      for (const r of [missing, dir, fifo]) expect(r.error).not.toContain(ws)
    }))

  it.effect("binary files get a clear error, not garbage", () =>
    Effect.gen(function*() {
      const zip = yield* read({ filepath: "bin.dat" })
      expect(zip.errorCode).toBe("TOOL_ERROR")
      expect(zip.error).toBe("\"bin.dat\" is a binary file (7 bytes), not UTF-8 text")
      expect((yield* read({ filepath: "latin1.txt" })).error).toContain("is a binary file")
      expect((yield* read({ filepath: "bin.dat", max_lines: 1 })).error).toContain("is a binary file")
    }))

  it.effect("binary detection looks at the first block only, and a character cut at its end is not invalid", () =>
    Effect.gen(function*() {
      // "é" (2 bytes) across the first 64 KiB boundary, then an invalid byte after the first block
      const head = Buffer.concat([Buffer.from("a".repeat(64 * 1024 - 1)), Buffer.from("é\n")])
      write("straddle.txt", Buffer.concat([head, Buffer.from("x".repeat(1000)), Buffer.from([0xff]), Buffer.from("\n")]))
      const r = yield* read({ filepath: "straddle.txt" })
      expect(r.success).toBe(true)
      const text = String(r.output)
      expect(text.slice(64 * 1024 - 2, 64 * 1024 + 1)).toBe("aé\n")
      expect(text.endsWith("x\uFFFD\n")).toBe(true)
      const first = yield* read({ filepath: "straddle.txt", max_lines: 1 })
      expect(first.output).toBe(`${"a".repeat(64 * 1024 - 1)}é\n... (1 more lines)`)
    }))

  it.effect("a whole-file read stops at the size cap and says how to read further", () =>
    Effect.gen(function*() {
      writeRepeated("big.txt", Buffer.from("0123456789abcde\n"), READ_FILE_MAX_BYTES + 16)
      const r = yield* read({ filepath: "big.txt" })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toBe(
        `"big.txt" is ${READ_FILE_MAX_BYTES + 16} bytes, over the ${READ_FILE_MAX_BYTES}-byte limit of a whole-file read; ` +
          "pass max_lines to read the beginning, or use read_lines with start_line/end_line to read a range"
      )
      const head = yield* read({ filepath: "big.txt", max_lines: 2 })
      expect(head.output).toBe(`0123456789abcde\n0123456789abcde\n... (${(READ_FILE_MAX_BYTES + 16) / 16 - 2} more lines)`)
    }))

  it.effect("max_lines on a file longer than the counting budget says at least how many lines follow, and the size", () =>
    Effect.gen(function*() {
      // 26,214 short lines, then zeros (sparse) to 1 MiB past the budget: every newline lies
      // inside the budget, the last byte counted is not one
      const file = Path.join(ws, "long-tail.txt")
      Fs.writeFileSync(file, "line\n".repeat(26_214))
      Fs.truncateSync(file, READ_FILE_COUNT_BYTES + MB)
      const r = yield* read({ filepath: "long-tail.txt", max_lines: 1 })
      Fs.rmSync(file)
      expect(r.output).toBe(
        `line\n... (at least 26214 more lines; the file is ${READ_FILE_COUNT_BYTES + MB} bytes: ` +
          "use read_lines with start_line/end_line to read further)"
      )
    }))

  it.effect.skipIf(underMutationTesting)("max_lines on 140 MB of newlines: no crash, bounded memory, counting stops at its budget", () =>
    Effect.gen(function*() {
      writeRepeated("newlines.txt", Buffer.from("\n"), 140 * MB)
      const { heapMb, rssMb, value } = yield* measured(read({ filepath: "newlines.txt", max_lines: 5 }))
      Fs.rmSync(Path.join(ws, "newlines.txt"))
      expect(value.success).toBe(true)
      const counted = /^\n{5}\.\.\. \(at least (\d+) more lines; the file is 146800640 bytes: use read_lines with start_line\/end_line to read further\)$/
        .exec(String(value.output))
      // the lines after the cut are counted in the first READ_FILE_COUNT_BYTES only (a deterministic
      // bound on the work, where a time limit would measure the machine)
      expect(counted).not.toBeNull()
      const more = Number(counted?.[1])
      expect(more).toBeGreaterThanOrEqual(READ_FILE_COUNT_BYTES - 5)
      expect(more).toBeLessThanOrEqual(READ_FILE_COUNT_BYTES + MB)
      expect(heapMb).toBeLessThan(64)
      expect(rssMb).toBeLessThan(128)
    }), { timeout: 30_000 })

  it.effect.skipIf(underMutationTesting)("max_lines on a 1.9 GB sparse file: bounded memory and work", () =>
    Effect.gen(function*() {
      // 100 KiB of text lines, then a hole up to 1.9 GB (its NULs count as a line that goes on)
      const file = Path.join(ws, "sparse.txt")
      Fs.writeFileSync(file, "line of text\n".repeat(8000))
      Fs.truncateSync(file, 1900 * MB)
      const lines = yield* measured(read({ filepath: "sparse.txt", max_lines: 5 }))
      const whole = yield* measured(read({ filepath: "sparse.txt" }))
      // all hole: NUL bytes from the start
      const holeOnly = Path.join(ws, "hole.bin")
      Fs.writeFileSync(holeOnly, "")
      Fs.truncateSync(holeOnly, 1900 * MB)
      const hole = yield* measured(read({ filepath: "hole.bin", max_lines: 5 }))
      Fs.rmSync(file)
      Fs.rmSync(holeOnly)
      expect(lines.value.success).toBe(true)
      expect(String(lines.value.output)).toBe(
        `${"line of text\n".repeat(5)}... (at least 7996 more lines; the file is ${1900 * MB} bytes: ` +
          "use read_lines with start_line/end_line to read further)"
      )
      expect(whole.value.error).toContain("over the 10485760-byte limit of a whole-file read")
      expect(hole.value.error).toBe(`"hole.bin" is a binary file (${1900 * MB} bytes), not UTF-8 text`)
      // bounded work: the count stops at its budget (the rest of the hole is never read), the
      // whole read is refused by size and the hole by its first block; memory stays small
      for (const m of [lines, whole, hole]) {
        expect(m.heapMb).toBeLessThan(64)
        expect(m.rssMb).toBeLessThan(128)
      }
    }), { timeout: 30_000 })

  it.effect.skipIf(underMutationTesting)("a large valid UTF-8 file is text, not binary", () =>
    Effect.gen(function*() {
      // 64 MiB of multi-byte text whose lines cut across every block boundary
      writeRepeated("utf8.txt", Buffer.from("ünïcødé ✓ 漢字 🙂 line\n"), 64 * MB)
      const r = yield* read({ filepath: "utf8.txt", max_lines: 2 })
      const whole = yield* read({ filepath: "utf8.txt" })
      Fs.rmSync(Path.join(ws, "utf8.txt"))
      expect(r.success).toBe(true)
      expect(String(r.output).startsWith("ünïcødé ✓ 漢字 🙂 line\nünïcødé ✓ 漢字 🙂 line\n... (")).toBe(true)
      expect(whole.error).toContain("over the 10485760-byte limit")
      expect(whole.error).not.toContain("binary")
    }), { timeout: 30_000 })

  it.effect("a line longer than the output cap is cut at a whole character, with a note", () =>
    Effect.gen(function*() {
      writeRepeated("one-line.txt", Buffer.from("é"), READ_FILE_MAX_BYTES + 3)
      const r = yield* read({ filepath: "one-line.txt", max_lines: 1 })
      Fs.rmSync(Path.join(ws, "one-line.txt"))
      expect(r.success).toBe(true)
      const out = String(r.output)
      expect(out.endsWith(
        `\n... (stopped after ${READ_FILE_MAX_BYTES} bytes, inside line 1; the file is ${READ_FILE_MAX_BYTES + 3} bytes: ` +
          "use read_lines with start_line/end_line to read further)"
      )).toBe(true)
      expect(out.startsWith("éé")).toBe(true)
      expect(out).not.toContain("\uFFFD")
    }), { timeout: 30_000 })

  it.effect("is read-only and names its parameters", () =>
    Effect.sync(() => {
      expect(readFile.spec.readOnly).toBe(true)
      expect(readFile.pathFields).toEqual(["filepath"])
      expect(readFile.spec.required).toEqual(["filepath"])
    }))
})
