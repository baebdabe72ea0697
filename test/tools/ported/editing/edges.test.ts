import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { lockedPathCount, withPathLock } from "../../../../src/tools/shared/pathLock.js"
import { call, fingerprint, makeWorkspace, systemFor, text } from "./harness.js"

const { remove, ws } = makeWorkspace("edit-edges-")
afterAll(remove)

const at = (rel: string) => Path.join(ws, rel)
const put = (rel: string, content: string | Uint8Array) => {
  Fs.mkdirSync(Path.dirname(at(rel)), { recursive: true })
  Fs.writeFileSync(at(rel), content)
}
/** A sparse file of `size` bytes (no disk is used for it). */
const sparse = (rel: string, size: number) => {
  put(rel, "")
  Fs.truncateSync(at(rel), size)
}

const ambiguity = (shown: string, times: number, lines: string) =>
  `old_text occurs ${times} times in ${shown} (at lines ${lines}); nothing was changed: pass count to replace the ` +
  "first ones, or include surrounding lines in old_text to make it unique"

describe("replace_in_file: where an ambiguous text occurs", () => {
  layer(systemFor(ws))((it) => {
    it.effect("occurrences on a last line without a final newline, and after a leading empty line", () =>
      Effect.gen(function*() {
        put("src/last.txt", "a\na")
        const last = yield* call("replace_in_file", { filepath: "src/last.txt", old_text: "a", new_text: "b" })
        expect(last.error).toBe(ambiguity("src/last.txt", 2, "1, 2"))
        put("src/lead.txt", "\na\na")
        const lead = yield* call("replace_in_file", { filepath: "src/lead.txt", old_text: "a", new_text: "b" })
        expect(lead.error).toBe(ambiguity("src/lead.txt", 2, "2, 3"))
      }))

    it.effect("an occurrence that starts with a line break is on the line that break ends", () =>
      Effect.gen(function*() {
        put("src/breaks.txt", "a\nb\nc")
        const r = yield* call("replace_in_file", { filepath: "src/breaks.txt", old_text: "\n", new_text: " " })
        expect(r.error).toBe(ambiguity("src/breaks.txt", 2, "1, 2"))
        expect(text(at("src/breaks.txt"))).toBe("a\nb\nc")
      }))

    it.effect("lists at most 10 line numbers, and says how many more there are", () =>
      Effect.gen(function*() {
        put("src/ten.txt", "x\n".repeat(10))
        const ten = yield* call("replace_in_file", { filepath: "src/ten.txt", old_text: "x", new_text: "y" })
        expect(ten.error).toBe(ambiguity("src/ten.txt", 10, "1, 2, 3, 4, 5, 6, 7, 8, 9, 10"))
        put("src/twelve.txt", "x\n".repeat(12))
        const twelve = yield* call("replace_in_file", { filepath: "src/twelve.txt", old_text: "x", new_text: "y" })
        expect(twelve.error).toBe(ambiguity("src/twelve.txt", 12, "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... (2 more)"))
      }))

    it.effect("a file over the edit limit is refused by size, untouched", () =>
      Effect.gen(function*() {
        sparse("src/huge.txt", 10 * 1024 * 1024 + 1)
        const before = fingerprint(at("src/huge.txt"))
        const r = yield* call("replace_in_file", { filepath: "src/huge.txt", old_text: "a", new_text: "b" })
        expect(r.error).toBe(
          "\"src/huge.txt\" is 10485761 bytes; replace_in_file edits files of at most 10485760 bytes " +
            "(write_file replaces a whole file)"
        )
        expect(fingerprint(at("src/huge.txt"))).toEqual(before)
      }))
  })
})

describe("apply_diff: errors", () => {
  layer(systemFor(ws))((it) => {
    it.effect("an unparsable line is quoted without its trailing blanks", () =>
      Effect.gen(function*() {
        put("src/p.txt", "a\nb\n")
        const r = yield* call("apply_diff", { filepath: "src/p.txt", diff: "@@ -1,2 +1,2 @@\n-a\nx  \n+A\n b\n" })
        expect(r.error).toBe(
          "the diff cannot be parsed: Hunk at line 1 contained invalid line x (check that each hunk's @@ -a,b +c,d @@ " +
            "counts match its lines); nothing was changed"
        )
      }))

    it.effect("past the first 50 hunks the failing one is not searched for", () =>
      Effect.gen(function*() {
        const lines = Array.from({ length: 102 }, (_, i) => `l${i + 1}`)
        put("src/many.txt", `${lines.join("\n")}\n`)
        const before = fingerprint(at("src/many.txt"))
        const hunk = (n: number, removed: string) => `@@ -${n},1 +${n},1 @@\n-${removed}\n+L${n}\n`
        const hunks = Array.from({ length: 51 }, (_, i) => hunk(2 * i + 1, i === 50 ? "nope" : `l${2 * i + 1}`))
        const r = yield* call("apply_diff", { filepath: "src/many.txt", diff: hunks.join("") })
        expect(r.error).toBe(
          "a hunk does not apply to src/many.txt: its context or removed lines do not match the file; nothing was " +
            "changed (read the file again and make the diff against its current text)"
        )
        expect(fingerprint(at("src/many.txt"))).toEqual(before)
        // the same 50 first hunks apply
        const ok = yield* call("apply_diff", { filepath: "src/many.txt", diff: hunks.slice(0, 50).join("") })
        expect(ok.output).toBe("Applied 50 hunks to src/many.txt (+50 -50 lines)")
      }))
  })
})

describe("the line tools on an empty file", () => {
  layer(systemFor(ws))((it) => {
    it.effect("append_to_file and insert_lines write the content as given, and say so", () =>
      Effect.gen(function*() {
        put("src/e1.txt", "")
        const appended = yield* call("append_to_file", { filepath: "src/e1.txt", content: "x\r\ny" })
        expect(appended.output).toBe("Appended 4 bytes to the empty file src/e1.txt")
        put("src/e2.txt", "")
        const inserted = yield* call("insert_lines", { filepath: "src/e2.txt", line_number: 1, content: "é\r\ny" })
        expect(inserted.output).toBe("Wrote 5 bytes to the empty file src/e2.txt")
        expect(text(at("src/e2.txt"))).toBe("é\r\ny")
      }))

    it.effect("remove_line_range says the file is empty", () =>
      Effect.gen(function*() {
        put("src/e3.txt", "")
        const r = yield* call("remove_line_range", { filepath: "src/e3.txt", start_line: 1, end_line: 1 })
        expect(r.error).toBe("lines 1-1 are out of range: src/e3.txt is empty")
      }))
  })
})

describe("copy_file and move_file: limits, odd destinations, locks", () => {
  layer(systemFor(ws))((it) => {
    it.effect("copy_file refuses a file over its limit, and a destination that is not a regular file", () =>
      Effect.gen(function*() {
        sparse("big/huge.bin", 64 * 1024 * 1024 + 1)
        const big = yield* call("copy_file", { source: "big/huge.bin", destination: "big/copy.bin" })
        expect(big.error).toBe(
          "big/huge.bin is 67108865 bytes; copy_file copies files of at most 67108864 bytes; nothing was copied"
        )
        expect(Fs.existsSync(at("big/copy.bin"))).toBe(false)
        put("odd/s.txt", "s")
        ChildProcess.execFileSync("mkfifo", [at("odd/pipe")])
        const fifo = yield* call("copy_file", { source: "odd/s.txt", destination: "odd/pipe", overwrite: true })
        expect(fifo.error).toBe("\"odd/pipe\" is a FIFO, not a regular file; nothing was copied")
        expect(Fs.statSync(at("odd/pipe")).isFIFO()).toBe(true)
      }))
  })
})

// live clock: real files; the wait until the call holds or waits for its locks polls in real time
describe("copy_file and move_file hold the locks of their paths", () => {
  for (const tool of ["copy_file", "move_file"] as const) {
    it.live(`${tool} waits for the lock of its destination`, () =>
      Effect.gen(function*() {
        put(`lock-${tool}/source.txt`, "s")
        const destination = at(`lock-${tool}/dest.txt`)
        const fiber = yield* withPathLock(destination)(Effect.gen(function*() {
          expect(lockedPathCount()).toBe(1)
          const running = yield* Effect.forkChild(
            call(tool, { source: `lock-${tool}/source.txt`, destination: `lock-${tool}/dest.txt` })
          )
          // until the call has taken (or waits for) its locks, or is done
          while (lockedPathCount() < 2 && running.pollUnsafe() === undefined) yield* Effect.sleep("5 millis")
          expect(running.pollUnsafe()).toBeUndefined()
          expect(lockedPathCount()).toBe(2)
          expect(Fs.existsSync(destination)).toBe(false)
          return running
        }))
        const result = yield* Fiber.join(fiber)
        expect(result.success, result.error ?? "").toBe(true)
        expect(text(destination)).toBe("s")
        expect(lockedPathCount()).toBe(0)
      }).pipe(Effect.provide(systemFor(ws))))
  }
})

/** A directory on another file system than the temp directory, if there is one (`/dev/shm` is a tmpfs on Linux). */
const otherFs = (() => {
  try {
    return Fs.statSync("/dev/shm").dev !== Fs.statSync(ws).dev && Fs.statSync("/dev/shm").isDirectory()
      ? Fs.realpathSync(Fs.mkdtempSync("/dev/shm/edit-edges-"))
      : undefined
  } catch {
    return undefined
  }
})()
afterAll(() => {
  if (otherFs !== undefined) Fs.rmSync(otherFs, { recursive: true, force: true })
})

describe("move_file across file systems", () => {
  // a workspace at "/" holds both the temp directory and the other file system
  it.effect.skipIf(otherFs === undefined)("is refused, naming both paths; nothing is moved", () =>
    Effect.gen(function*() {
      put("xdev/a.txt", "a")
      const source = Path.relative("/", at("xdev/a.txt"))
      const destination = Path.relative("/", Path.join(otherFs ?? "", "a.txt"))
      const r = yield* call("move_file", { source, destination })
      expect(r.error).toBe(
        `${source} and ${destination} are on different file systems; nothing was moved (copy_file, then delete_file)`
      )
      expect(text(at("xdev/a.txt"))).toBe("a")
      expect(Fs.readdirSync(otherFs ?? "")).toEqual([])
    }).pipe(Effect.provide(systemFor("/"))))
})
