import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Result, Option } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { writeFileAtomic } from "../../../src/tools/shared/atomicWrite.js"
import { isAt, openDirectory, openFile, SafeFsError } from "../../../src/tools/shared/safeFs.js"
import { readBytes } from "../../../src/tools/shared/safeFsBytes.js"
import { readFirstLines, readText } from "../../../src/tools/shared/safeFsRead.js"
import { walk } from "../../../src/tools/shared/safeFsWalk.js"
import { looksBinary } from "../../../src/tools/shared/text.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

let base: string
let ws: string
let outside: string
let server: Net.Server

const at = (...parts: Array<string>) => Path.join(ws, ...parts)

beforeAll(async () => {
  base = makeTempDirSync("safe-fs-")
  ws = Path.join(base, "ws")
  outside = Path.join(base, "outside")
  Fs.mkdirSync(Path.join(ws, "real", "sub"), { recursive: true })
  Fs.mkdirSync(outside)
  Fs.writeFileSync(Path.join(outside, "secret.txt"), "SECRET")
  Fs.writeFileSync(at("real", "f.txt"), "inside\n")
  Fs.symlinkSync("real", at("link"))
  Fs.symlinkSync(Path.join("real", "f.txt"), at("file-link"))
  Fs.symlinkSync(outside, at("out"))
  ChildProcess.execFileSync("mkfifo", [at("fifo")])
  server = Net.createServer()
  await new Promise<void>((resolve) => server.listen(at("sock"), resolve))
})

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
  Fs.rmSync(base, { recursive: true, force: true })
})

/** The failure of an effect, which must fail with a `SafeFsError`. */
const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => {
    expect(error).toBeInstanceOf(SafeFsError)
    return error instanceof SafeFsError ? error : new SafeFsError({ reason: "Io", path: "", message: "" })
  })

/**
 * This process's descriptors open on a path (files, directories, FIFOs): what the safe-fs
 * functions open. Pipes, sockets and event-loop descriptors are left out: in the fast lane a
 * Worker of an earlier test file may end during the test and close its four (seen: 30 before,
 * 22 after, with nothing of safe-fs open).
 */
const openCount = () =>
  Fs.readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return Fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith("/")
    } catch {
      return false // the directory listing's own descriptor, closed by now
    }
  }).length

describe("openFile binds the check to the descriptor", () => {
  it.effect("opens a regular file at its real path", () =>
    Effect.gen(function*() {
      const file = yield* openFile(at("real", "f.txt"))
      expect(file.size).toBe(7)
      expect(yield* readText(file, 100)).toBe("inside\n")
    }).pipe(Effect.scoped))

  it.effect("refuses a final symlink, even one leading inside", () =>
    Effect.gen(function*() {
      const error = yield* failureOf(Effect.scoped(openFile(at("file-link"))))
      expect(error.reason).toBe("Changed")
    }))

  it.effect("refuses a file reached through a directory link: the real path must EQUAL the expected one", () =>
    Effect.gen(function*() {
      // `link/f.txt` is inside the workspace, but it is not where the descriptor is
      const error = yield* failureOf(Effect.scoped(openFile(at("link", "f.txt"))))
      expect(error.reason).toBe("Changed")
      expect(error.message).toContain("changed while it was being opened")
      const out = yield* failureOf(Effect.scoped(openFile(at("out", "secret.txt"))))
      expect(out.reason).toBe("Changed")
      expect(out.message).not.toContain("SECRET")
    }))

  it.effect("refuses a FIFO and a socket without blocking, and a directory", () =>
    Effect.gen(function*() {
      const fifo = yield* failureOf(Effect.scoped(openFile(at("fifo"))))
      expect([fifo.reason, fifo.kind]).toEqual(["NotRegularFile", "FIFO"])
      const socket = yield* failureOf(Effect.scoped(openFile(at("sock"))))
      expect([socket.reason, socket.kind]).toEqual(["NotRegularFile", "socket"])
      const dir = yield* failureOf(Effect.scoped(openFile(at("real"))))
      expect(dir.reason).toBe("IsDirectory")
      const missing = yield* failureOf(Effect.scoped(openFile(at("nope"))))
      expect(missing.reason).toBe("NotFound")
    }))

  it.effect("openDirectory refuses a link and a file", () =>
    Effect.gen(function*() {
      expect((yield* failureOf(Effect.scoped(openDirectory(at("link"))))).reason).toBe("Changed")
      expect((yield* failureOf(Effect.scoped(openDirectory(at("real", "f.txt"))))).reason).toBe("NotDirectory")
      expect((yield* Effect.scoped(openDirectory(at("real")))).path).toBe(at("real"))
    }))

  it.effect("isAt follows the file, not the name: a rename is seen", () =>
    Effect.gen(function*() {
      Fs.writeFileSync(at("moving.txt"), "m")
      const file = yield* openFile(at("moving.txt"))
      expect(yield* isAt(file.fd, at("moving.txt"))).toBe(true)
      Fs.renameSync(at("moving.txt"), at("moved.txt"))
      expect(yield* isAt(file.fd, at("moving.txt"))).toBe(false)
      expect(yield* isAt(file.fd, at("moved.txt"))).toBe(true)
    }).pipe(Effect.scoped))

  it.effect("leaves no descriptor open, whatever fails", () =>
    Effect.gen(function*() {
      const before = openCount()
      for (let i = 0; i < 50; i++) {
        for (const p of [at("fifo"), at("sock"), at("file-link"), at("link", "f.txt"), at("real"), at("real", "f.txt")]) {
          yield* Effect.result(Effect.scoped(Effect.flatMap(openFile(p), (f) => readText(f, 3))))
        }
        yield* Effect.result(writeFileAtomic(ws, at("real", "sub", `w${i % 5}.txt`), "w"))
        yield* Effect.result(writeFileAtomic(ws, at("real"), "w"))
      }
      expect(openCount()).toBe(before)
    }))
})

describe("writeFileAtomic", () => {
  it.effect("creates missing directories one level at a time and never through a link", () =>
    Effect.gen(function*() {
      const written = yield* writeFileAtomic(ws, at("made", "a", "b.txt"), "b")
      expect(written).toEqual({ replaced: false, bytes: 1 })
      expect(Fs.readFileSync(at("made", "a", "b.txt"), "utf8")).toBe("b")
      // `link` stands where the resolver saw a directory: a swap; nothing is created behind it
      const error = yield* failureOf(writeFileAtomic(ws, at("link", "new", "x.txt"), "x"))
      expect(error.reason).toBe("Changed")
      expect(Fs.existsSync(at("real", "new"))).toBe(false)
      const out = yield* failureOf(writeFileAtomic(ws, at("out", "x.txt"), "x"))
      expect(out.reason).toBe("Changed")
      expect(Fs.readdirSync(outside)).toEqual(["secret.txt"])
    }))

  it.effect("a symlink at the target is not written through", () =>
    Effect.gen(function*() {
      Fs.symlinkSync(Path.join(outside, "secret.txt"), at("real", "target-link"))
      const error = yield* failureOf(writeFileAtomic(ws, at("real", "target-link"), "pwned"))
      expect(error.reason).toBe("Changed")
      expect(error.message).toBe(
        `"${at("real", "target-link")}" changed while it was being written (a symbolic link or a move replaced part of it); try again`
      )
      expect(Fs.readFileSync(Path.join(outside, "secret.txt"), "utf8")).toBe("SECRET")
      expect(Fs.lstatSync(at("real", "target-link")).isSymbolicLink()).toBe(true)
      expect(Fs.readdirSync(at("real")).filter((n) => n.endsWith(".tmp"))).toEqual([])
    }))

  it.effect("replaces a file whole and reports it", () =>
    Effect.gen(function*() {
      Fs.writeFileSync(at("real", "r.txt"), "a much longer old content")
      expect(yield* writeFileAtomic(ws, at("real", "r.txt"), new Uint8Array([0x68, 0x69]))).toEqual({
        replaced: true,
        bytes: 2
      })
      expect(Fs.readFileSync(at("real", "r.txt"), "utf8")).toBe("hi")
    }))
})

describe("streaming reads", () => {
  const withFile = <A, E>(content: string | Uint8Array, use: (file: Parameters<typeof readText>[0]) => Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      const path = at(`read-${Math.random().toString(36).slice(2)}.txt`)
      Fs.writeFileSync(path, content)
      return yield* Effect.scoped(Effect.flatMap(openFile(path), use))
    })

  it.effect("first lines: exact counts, the whole file when it is short", () =>
    Effect.gen(function*() {
      const options = { maxLines: 2, maxBytes: 1000, readBytes: 1000 }
      expect(yield* withFile("a\nb\nc\nd", (f) => readFirstLines(f, options))).toEqual({
        _tag: "Head",
        text: "a\nb",
        moreLines: 2,
        exact: true
      })
      expect(yield* withFile("a\nb\n", (f) => readFirstLines(f, options))).toEqual({ _tag: "Whole", text: "a\nb\n" })
      expect(yield* withFile("a", (f) => readFirstLines(f, options))).toEqual({ _tag: "Whole", text: "a" })
    }))

  it.effect("first lines: the output cap cuts at a whole character; the read budget gives 'at least'", () =>
    Effect.gen(function*() {
      const capped = yield* withFile("ab\nééééé\n", (f) => readFirstLines(f, { maxLines: 2, maxBytes: 6, readBytes: 100 }))
      expect(capped).toEqual({ _tag: "Capped", text: "ab\né", line: 2 })
      const lines = "x\n".repeat(3 * 1024 * 1024)
      const budget = yield* withFile(lines, (f) => readFirstLines(f, { maxLines: 1, maxBytes: 100, readBytes: 1024 * 1024 }))
      expect(budget._tag).toBe("Head")
      if (budget._tag === "Head") {
        expect(budget.exact).toBe(false)
        expect(budget.moreLines).toBeLessThan(3 * 1024 * 1024 - 1)
        expect(budget.moreLines).toBeGreaterThan(0)
      }
    }))

  it.effect("first lines: lines that fill the output cap exactly are all returned; a cap in a later read counts its line", () =>
    Effect.gen(function*() {
      // "abcd" is exactly maxBytes: a Head, not Capped
      const exact = yield* withFile("abcd\nefgh\n", (f) => readFirstLines(f, { maxLines: 1, maxBytes: 4, readBytes: 100 }))
      expect(exact).toEqual({ _tag: "Head", text: "abcd", moreLines: 1, exact: true })
      // the first read (64 KiB) is kept whole; the cap falls inside line 2 in the second read,
      // which holds two more newlines after it
      const long = `a\n${"b".repeat(100_000)}\nc\n`
      const capped = yield* withFile(long, (f) => readFirstLines(f, { maxLines: 3, maxBytes: 70_000, readBytes: 1_000_000 }))
      expect(capped).toEqual({ _tag: "Capped", text: `a\n${"b".repeat(69_998)}`, line: 2 })
    }))

  it.effect("first lines: a file that ends right after the lines asked for is whole; one without a final newline counts its last line", () =>
    Effect.gen(function*() {
      const options = { maxLines: 1, maxBytes: 1000, readBytes: 1000 }
      expect(yield* withFile("a\n", (f) => readFirstLines(f, options))).toEqual({ _tag: "Whole", text: "a\n" })
      expect(yield* withFile("a\nb", (f) => readFirstLines(f, options))).toEqual({ _tag: "Head", text: "a", moreLines: 1, exact: true })
      expect(yield* withFile("a\nb\n", (f) => readFirstLines(f, options))).toEqual({ _tag: "Head", text: "a", moreLines: 1, exact: true })
      // lines after the first read's block: counted in the later reads, exactly
      const later = `a\n${"x".repeat(70_000)}\ny`
      expect(yield* withFile(later, (f) => readFirstLines(f, { maxLines: 1, maxBytes: 1000, readBytes: 1_000_000 }))).toEqual({
        _tag: "Head",
        text: "a",
        moreLines: 2,
        exact: true
      })
      // the bytes after the cut in the first read and those of the later reads add up (65,534 each)
      const halves = `a\n${"x".repeat(65_534 + 65_534)}`
      expect(yield* withFile(halves, (f) => readFirstLines(f, { maxLines: 1, maxBytes: 1000, readBytes: 1_000_000 }))).toEqual({
        _tag: "Head",
        text: "a",
        moreLines: 1,
        exact: true
      })
      // the newline that ends the last line asked for is the first byte of a later read
      const boundary = `${"y".repeat(65_536)}\nrest\n`
      expect(yield* withFile(boundary, (f) => readFirstLines(f, { maxLines: 1, maxBytes: 100_000, readBytes: 1_000_000 }))).toEqual({
        _tag: "Head",
        text: "y".repeat(65_536),
        moreLines: 1,
        exact: true
      })
    }))

  it.effect("first lines: the read budget at the byte, and a later read's newlines counted in it only", () =>
    Effect.gen(function*() {
      const first = (content: string, readBytes: number) =>
        withFile(content, (f) => readFirstLines(f, { maxLines: 1, maxBytes: 1000, readBytes }))
      // the budget reached exactly by the first read (64 KiB) of a longer file: counting stops, "at least"
      expect(yield* first(`a\n${"x".repeat(65_534)}\nb\nc\n`, 65_536)).toEqual({
        _tag: "Head",
        text: "a",
        moreLines: 1,
        exact: false
      })
      // the budget spent, but the file read to its end: one more read finds the end, "exactly"
      expect(yield* first(`a\n${"x".repeat(65_533)}\n`, 100)).toEqual({ _tag: "Head", text: "a", moreLines: 1, exact: true })
      // a later, shorter read: the byte after it (the first read's newline at byte 10) is not counted
      expect(yield* first(`a\n${"x".repeat(8)}\n${"y".repeat(65_525)}${"z".repeat(10)}`, 1_000_000)).toEqual({
        _tag: "Head",
        text: "a",
        moreLines: 2,
        exact: true
      })
    }))

  it.effect("first lines: a newline an earlier read left in the buffer past a shorter read is not counted", () =>
    Effect.gen(function*() {
      // the first read (64 KiB) holds one newline, at byte 100; the second reads the last 100
      // bytes into the same buffer, whose byte 100 is still that newline: the second line has
      // no end, so the file is whole
      const content = `${"x".repeat(100)}\n${"x".repeat(65_536 - 101)}${"y".repeat(100)}`
      expect(yield* withFile(content, (f) => readFirstLines(f, { maxLines: 2, maxBytes: 100_000, readBytes: 1_000_000 })))
        .toEqual({ _tag: "Whole", text: content })
    }))

  it.effect("first lines: after the first block, each read is a whole chunk (1 MiB), and the read budget is checked between reads", () =>
    Effect.gen(function*() {
      // a budget just past the first block: one more read, of 1 MiB, is counted, then counting stops
      const line = `${"x".repeat(99)}\n`
      const content = line.repeat(20_000)
      const read = 64 * 1024 + 1024 * 1024
      const result = yield* withFile(content, (f) => readFirstLines(f, { maxLines: 1, maxBytes: 1000, readBytes: 64 * 1024 + 1 }))
      expect(result).toEqual({
        _tag: "Head",
        text: "x".repeat(99),
        // the newlines in the bytes read after the first one, and the line the last read cut
        moreLines: content.slice(100, read).split("\n").length,
        exact: false
      })
    }))

  it.effect("a file shorter than the first block ending inside a character is binary; one larger than the cap when opened stays so", () =>
    Effect.gen(function*() {
      const cut = yield* Effect.flip(withFile(new Uint8Array([0x61, 0xc3]), (f) => readText(f, 100)))
      expect(cut).toMatchObject({ _tag: "BinaryFile", size: 2 })
      // shrunk under the cap after it was opened: refused by the size it had
      const shrunk = <A, E>(read: (f: Parameters<typeof readText>[0]) => Effect.Effect<A, E>) =>
        Effect.flip(withFile("x".repeat(200), (f) =>
          Effect.suspend(() => {
            Fs.truncateSync(f.path, 5)
            return read(f)
          })))
      expect(yield* shrunk((f) => readText(f, 100))).toMatchObject({ _tag: "FileTooLarge", size: 200, limit: 100 })
      expect(yield* shrunk((f) => readBytes(f, 100))).toMatchObject({ _tag: "FileTooLarge", size: 200, limit: 100 })
    }))

  it.effect("a whole read past its cap fails, by size or by what is read when the file grew; a binary first block fails", () =>
    Effect.gen(function*() {
      const large = yield* Effect.flip(withFile("x".repeat(101), (f) => readText(f, 100)))
      expect(large).toMatchObject({ _tag: "FileTooLarge", size: 101, limit: 100 })
      expect(yield* withFile("x".repeat(100), (f) => readText(f, 100))).toBe("x".repeat(100))
      const growing = (limit: number) =>
        withFile("0123456789", (f) =>
          Effect.suspend(() => {
            Fs.appendFileSync(f.path, "y".repeat(40))
            return readText(f, limit)
          }))
      // the size said 10; 50 bytes are read
      expect(yield* Effect.flip(growing(49))).toMatchObject({ _tag: "FileTooLarge", size: 50, limit: 49 })
      expect(yield* growing(50)).toBe(`0123456789${"y".repeat(40)}`)
      const binary = yield* Effect.flip(withFile(new Uint8Array([0x61, 0, 0x62]), (f) => readText(f, 100)))
      expect(binary._tag).toBe("BinaryFile")
    }))

  it.effect("readBytes: every byte up to the cap, exactly at it too; past it by size, or by what is read when the file grew", () =>
    Effect.gen(function*() {
      const bytes = Buffer.from(Array.from({ length: 100 }, (_, i) => (i * 37) % 256))
      expect(Buffer.from(yield* withFile(bytes, (f) => readBytes(f, 100))).equals(bytes)).toBe(true)
      const over = yield* Effect.flip(withFile(bytes, (f) => readBytes(f, 99)))
      expect(over).toMatchObject({ _tag: "FileTooLarge", size: 100, limit: 99 })
      // grown after it was opened: the size said 10, the read finds more than the cap (and stops there)
      const grown = yield* Effect.flip(withFile(bytes.subarray(0, 10), (f) =>
        Effect.suspend(() => {
          Fs.appendFileSync(f.path, bytes)
          return readBytes(f, 50)
        })))
      expect(grown).toMatchObject({ _tag: "FileTooLarge", size: 51, limit: 50 })
      // grown, still under the cap: all of it (read a byte at a time past the first size, as it once was, this
      // took seconds; 2 MB took over two minutes)
      const reads = yield* withFile(bytes.subarray(0, 10), (f) =>
        Effect.suspend(() => {
          Fs.appendFileSync(f.path, Buffer.alloc(200_000, 1))
          return readBytes(f, 1024 * 1024)
        }))
      expect(reads.length).toBe(200_010)
      // shrunk after it was opened: what is there
      const shrunk = yield* withFile(bytes, (f) =>
        Effect.suspend(() => {
          Fs.truncateSync(f.path, 7)
          return readBytes(f, 100)
        }))
      expect(Buffer.from(shrunk).equals(bytes.subarray(0, 7))).toBe(true)
      // more than one chunk (1 MiB) of reads
      const big = Buffer.alloc(2.5 * 1024 * 1024, 7)
      big[big.length - 1] = 9
      expect(Buffer.from(yield* withFile(big, (f) => readBytes(f, big.length))).equals(big)).toBe(true)
    }))

  it("binary detection: NUL in the first 8 KiB or invalid UTF-8; a character cut at the block end is fine", () => {
    const cut = Buffer.from("aé").subarray(0, 2)
    expect(looksBinary(cut, false)).toBe(false)
    expect(looksBinary(cut, true)).toBe(true)
    expect(looksBinary(Buffer.from([0x61, 0x00]))).toBe(true)
    expect(looksBinary(Buffer.from([0x61, 0xff, 0x62]), false)).toBe(true)
    expect(looksBinary(Buffer.from("plain ✓ text"))).toBe(false)
  })
})

describe("walk", () => {
  it.effect("lists below its start only, follows a link only where told, and stops at its cap", () =>
    Effect.gen(function*() {
      const root = at("tree")
      Fs.mkdirSync(Path.join(root, "real", "sub"), { recursive: true })
      Fs.writeFileSync(Path.join(root, "real", "f.txt"), "f")
      Fs.symlinkSync("real", Path.join(root, "link"))
      Fs.symlinkSync(outside, Path.join(root, "out"))
      const all = yield* walk(root, { descend: () => true, follow: () => Effect.succeed(Option.none()), maxEntries: 10_000 })
      expect(all.truncated).toBe(false)
      const rels = all.entries.map((e) => e.rel)
      expect(rels).toContain("real/f.txt")
      expect(rels).toContain("out")
      expect(rels.some((r) => r.startsWith("out/") || r.startsWith("link/"))).toBe(false)
      const followed = yield* walk(root, {
        descend: (rel) => rel === "link",
        follow: (entry) => Effect.succeed(entry.rel === "link" ? Option.some(Path.join(root, "real")) : Option.none()),
        maxEntries: 10_000
      })
      expect(followed.entries.filter((e) => e.rel.startsWith("link/")).map((e) => e.rel).sort()).toEqual([
        "link/f.txt",
        "link/sub"
      ])
      const capped = yield* walk(root, { descend: () => true, follow: () => Effect.succeed(Option.none()), maxEntries: 3 })
      expect(capped.entries).toHaveLength(3)
      expect(capped.truncated).toBe(true)
      const missing = yield* Effect.result(
        walk(at("nope"), { descend: () => true, follow: () => Effect.succeed(Option.none()), maxEntries: 3 })
      )
      expect(Result.isFailure(missing) && missing.failure.reason).toBe("NotFound")
    }))

  it.effect("a followed link that leads to nothing or to a file is no skip; one that is a link again is skipped", () =>
    Effect.gen(function*() {
      const root = at("follows")
      Fs.mkdirSync(root)
      Fs.writeFileSync(Path.join(root, "file.txt"), "f")
      Fs.mkdirSync(Path.join(root, "dir"))
      Fs.symlinkSync("dir", Path.join(root, "hop"))
      for (const name of ["to-missing", "to-file", "to-link"]) Fs.symlinkSync("dir", Path.join(root, name))
      const targets: Record<string, string> = {
        "to-missing": Path.join(root, "missing"),
        "to-file": Path.join(root, "file.txt"),
        // a directory path that is itself a link: opened without following, so it is refused
        "to-link": Path.join(root, "hop")
      }
      const walked = (names: ReadonlyArray<string>) =>
        walk(root, {
          descend: () => true,
          follow: (entry) => Effect.succeed(names.includes(entry.rel) ? Option.some(targets[entry.rel]!) : Option.none()),
          maxEntries: 100
        })
      expect((yield* walked(["to-missing", "to-file"])).skipped).toBe(0)
      expect((yield* walked(["to-link"])).skipped).toBe(1)
    }))

  it.effect("a link under a path not to descend into is not even asked about", () =>
    Effect.gen(function*() {
      const root = at("asked")
      Fs.mkdirSync(Path.join(root, "dir"), { recursive: true })
      Fs.symlinkSync("dir", Path.join(root, "link"))
      const asked: Array<string> = []
      const result = yield* walk(root, {
        descend: (rel) => rel !== "link",
        follow: (entry) => Effect.sync(() => asked.push(entry.rel)).pipe(Effect.as(Option.some(Path.join(root, "dir")))),
        maxEntries: 100
      })
      expect(asked).toEqual([])
      expect(result.entries.map((e) => e.rel).sort()).toEqual(["dir", "link"])
    }))

  it.effect("only a link is asked about: a file, a FIFO or a directory to descend into never is", () =>
    Effect.gen(function*() {
      const root = at("only-links")
      Fs.mkdirSync(Path.join(root, "dir"), { recursive: true })
      Fs.writeFileSync(Path.join(root, "file.txt"), "f")
      ChildProcess.execFileSync("mkfifo", [Path.join(root, "pipe")])
      Fs.symlinkSync("dir", Path.join(root, "link"))
      const asked: Array<string> = []
      const result = yield* walk(root, {
        descend: () => true,
        follow: (entry) => Effect.sync(() => asked.push(entry.rel)).pipe(Effect.as(Option.none())),
        maxEntries: 100
      })
      expect(asked).toEqual(["link"])
      expect(result.entries.map((e) => [e.rel, e.kind]).sort()).toEqual([
        ["dir", "directory"],
        ["file.txt", "file"],
        ["link", "symlink"],
        ["pipe", "other"]
      ])
    }))
})
