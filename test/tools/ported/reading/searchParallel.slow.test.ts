/**
 * `search_files` with worker threads: the same lines, notes and counts as the main thread alone,
 * for every kind of pattern and file (literal, case-insensitive, regex, an empty match; binary,
 * invalid UTF-8, CRLF, BOM, a file past the first block, a file streamed, a link to a file);
 * the cap stops the walk; an interrupted search leaves no descriptor and no thread behind; a
 * catastrophic regex in a worker ends quickly; through the executor, a big tree uses them; a
 * worker opens a job's files through the directory's descriptor, not its path. In the slow
 * lane: each comparison starts worker threads for several searches of a 480-file tree, up to
 * 2.5 s of CPU a test.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Result, Fiber, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Workspace } from "../../../../src/index.js"
import { childOf } from "../../../../src/tools/shared/safeFsNode.js"
import { FIRST_BLOCK_BYTES } from "../../../../src/tools/shared/safeFsRead.js"
import { closeSync, openDirectorySync } from "../../../../src/tools/shared/safeFsSync.js"
import { compileMatcher } from "../../../../src/tools/ported/reading/searchMatch.js"
import { AGAIN, FOUND, NONE } from "../../../../src/tools/ported/reading/searchWorkerSource.js"
import { type Answered, startSearchWorkers } from "../../../../src/tools/ported/reading/searchWorkers.js"
import { type SearchResult, searchTree } from "../../../../src/tools/ported/reading/searchTree.js"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { call, makeWorkspace, outputOf } from "./harness.js"

let fixture: ReturnType<typeof makeWorkspace>

const FOLDERS = 12
const FILES = 40

beforeAll(() => {
  fixture = makeWorkspace("search-parallel-")
  const { write, ws } = fixture
  const plain = (i: number) => Array.from({ length: 8 }, (_, l) => `line ${l} of file ${i}\n`).join("")
  for (let d = 0; d < FOLDERS; d++) {
    for (let f = 0; f < FILES; f++) {
      const i = d * FILES + f
      const name = `d${String(d).padStart(2, "0")}/f${String(f).padStart(2, "0")}`
      switch (i % 10) {
        case 0:
          write(`${name}.txt`, `${plain(i)}the needle ${i}\n${plain(i)}`)
          break
        case 1:
          write(`${name}.txt`, `first\r\nNeedle in CRLF ${i}\r\nlast\r\n`)
          break
        case 2:
          write(`${name}.txt`, `héllo nEEdle 🙂 ${i}\nno final newline needle`)
          break
        case 3:
          write(`${name}.bin`, Buffer.concat([Buffer.from(`needle ${i}\n`), Buffer.from([0, 1, 2]), Buffer.from("needle\n")]))
          break
        case 4:
          write(`${name}.bin`, Buffer.concat([Buffer.from("needle "), Buffer.from([0xff, 0xfe, 0x80]), Buffer.from("\n")]))
          break
        case 5:
          write(`${name}.txt`, `\ufeffneedle after a BOM ${i}\n`)
          break
        case 6:
          write(`${name}.txt`, `${"w".repeat(700)} needle ${"z".repeat(700)}\n`)
          break
        default:
          write(`${name}.txt`, plain(i))
      }
    }
  }
  // past the first block (read again by the main thread), and past the synchronous buffer (streamed)
  write("d03/g-mid.txt", `${"x".repeat(99)}\n`.repeat(900) + "needle past the first block\n")
  write("d05/g-big.txt", `${"y".repeat(99)}\n`.repeat(3000) + "needle in a streamed file\n")
  write("d07/empty.txt", "")
  // followed (streamed) when the search starts in d09; met again (not read twice) from the root
  Fs.symlinkSync(Path.join(ws, "d00/f00.txt"), Path.join(ws, "d09/link-to-f00.txt"))
  // first in its directory: the files of a worker's job are the others, each answer to be matched to its own file
  Fs.symlinkSync(Path.join(ws, "d00/f10.txt"), Path.join(ws, "d09/a-link.txt"))
})

afterAll(() => fixture.remove())

const workspaceLayer = () => Workspace.layerFixed(fixture.ws).pipe(Layer.provide(NodeServices.layer))

/** The search of the fixture, with `workers` threads started from the first file on. */
const search = (
  pattern: string,
  options: {
    readonly regex?: boolean
    readonly caseSensitive?: boolean
    readonly limit?: number
    readonly workers: number
    readonly directory?: string
  }
): Effect.Effect<SearchResult> =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    const matcher = compileMatcher(pattern, { regex: options.regex ?? false, caseSensitive: options.caseSensitive ?? true })
    if (Result.isFailure(matcher)) return yield* Effect.die(matcher.failure)
    return yield* Effect.scoped(searchTree({
      directory: Fs.realpathSync(Path.join(fixture.ws, options.directory ?? ".")),
      shownDir: options.directory ?? ".",
      matcher: matcher.success,
      glob: undefined,
      limit: options.limit ?? 100_000,
      maxFiles: 200_000,
      resolveLink: workspace.tryResolve,
      parallel: { workers: options.workers, minFiles: 0 }
    }))
  }).pipe(Effect.orDie, Effect.provide(workspaceLayer()))

const summary = (result: SearchResult) => ({
  lines: result.lines,
  searched: result.searched,
  unreadable: result.unreadable,
  partial: result.partial,
  stopped: result.walked.stopped
})

/** Open descriptors and threads of this process. */
const usage = () => ({
  fds: Fs.readdirSync("/proc/self/fd").length,
  threads: Fs.readdirSync("/proc/self/task").length
})

describe.skipIf(process.platform !== "linux")("search_files in worker threads", () => {
  const cases: ReadonlyArray<readonly [string, { readonly regex?: boolean; readonly caseSensitive?: boolean }]> = [
    ["needle", {}],
    ["NEEDLE", { caseSensitive: false }],
    ["^needle|needle$|\\bNeedle\\b", { regex: true }],
    ["needle \\d+$", { regex: true, caseSensitive: false }],
    // matches the empty string: every file has a first match; only lines that are lines count
    ["x*", { regex: true }],
    ["nothing like this", {}]
  ]
  for (const [pattern, options] of cases) {
    it.live(`gives what the main thread alone gives: ${JSON.stringify(pattern)} ${JSON.stringify(options)}`, () =>
      Effect.gen(function*() {
        const alone = summary(yield* search(pattern, { ...options, workers: 0 }))
        for (const workers of [1, 2]) {
          expect(summary(yield* search(pattern, { ...options, workers })), `${workers} workers`).toEqual(alone)
        }
        if (pattern === "needle") {
          expect(alone.lines).toContain("d03/g-mid.txt:901: needle past the first block")
          expect(alone.lines).toContain("d05/g-big.txt:3001: needle in a streamed file")
          expect(alone.lines).toContain("d00/f00.txt:9: the needle 0")
          expect(alone.lines.some((line) => line.includes(".bin:"))).toBe(false)
          expect(alone.lines.some((line) => line.startsWith("d09/link-to-f00.txt"))).toBe(false)
          expect(alone.searched).toBe(FOLDERS * FILES + 3)
          // from d09, the link leads out of the walked tree: its target is streamed
          const fromLink = summary(yield* search(pattern, { workers: 0, directory: "d09" }))
          expect(fromLink.lines).toContain("d09/link-to-f00.txt:9: the needle 0")
          expect(fromLink.lines).toContain("d09/a-link.txt:9: the needle 10")
          expect(fromLink.lines).toContain("d09/f00.txt:9: the needle 360")
          expect(summary(yield* search(pattern, { workers: 2, directory: "d09" }))).toEqual(fromLink)
        }
        if (pattern === "nothing like this") expect(alone.lines).toEqual([])
      }), { timeout: 30_000 })
  }

  it.live("stops at the limit, with the first lines in walk order", () =>
    Effect.gen(function*() {
      const all = yield* search("needle", { workers: 0 })
      for (const limit of [1, 7, 40]) {
        for (const workers of [0, 2]) {
          const capped = yield* search("needle", { workers, limit })
          expect(capped.lines, `${workers} workers, limit ${limit}`).toEqual(all.lines.slice(0, limit))
          // with workers, the walk may have ended before the answers that fill the limit came in
          if (workers === 0) expect(capped.walked.stopped).toBe(true)
        }
      }
    }), { timeout: 30_000 })

  it.live("an interrupted search leaves no descriptor and no thread behind", () =>
    Effect.gen(function*() {
      // warm: the thread pool and module state a first search creates
      yield* search("needle", { workers: 2 })
      const before = usage()
      for (const delay of [0, 2, 10, 30]) {
        const fiber = yield* Effect.forkChild(search("x*", { regex: true, workers: 2 }))
        yield* Effect.sleep(Duration.millis(delay))
        yield* Fiber.interrupt(fiber)
      }
      // a worker's thread is gone once terminate() has resolved; give the OS a moment all the same
      let after = usage()
      for (let i = 0; i < 50 && (after.fds > before.fds || after.threads > before.threads); i++) {
        yield* Effect.sleep(Duration.millis(20))
        after = usage()
      }
      expect(after.fds).toBeLessThanOrEqual(before.fds)
      expect(after.threads).toBeLessThanOrEqual(before.threads)
    }), { timeout: 30_000 })

  it.live("a catastrophic regex in the workers ends quickly (re2js there too)", () =>
    Effect.gen(function*() {
      const dir = Path.join(fixture.ws, "redos")
      Fs.mkdirSync(dir, { recursive: true })
      for (let i = 0; i < 8; i++) Fs.writeFileSync(Path.join(dir, `evil${i}.txt`), `${"a".repeat(60_000)}b\naaa\n`)
      const start = Date.now()
      const result = yield* search("(a+)+$", { regex: true, workers: 2 })
      expect(Date.now() - start).toBeLessThan(10_000)
      expect(result.lines.filter((line) => line.startsWith("redos/"))).toEqual(
        Array.from({ length: 8 }, (_, i) => `redos/evil${i}.txt:2: aaa`)
      )
      Fs.rmSync(dir, { recursive: true })
    }), { timeout: 30_000 })
})

describe("search_files on a big tree (through the executor)", () => {
  it.live("finds every match in walk order on a tree big enough for the workers, and caps", () =>
    Effect.gen(function*() {
      const big = makeWorkspace("search-big-")
      try {
        // more files than the search meets before it starts its workers
        for (let d = 0; d < 30; d++) {
          for (let f = 0; f < 100; f++) {
            const i = d * 100 + f
            big.write(`p${String(d).padStart(2, "0")}/q${String(f).padStart(3, "0")}.ts`, i % 50 === 7 ? `a\nfound ${i}\n` : "a\nb\n")
          }
        }
        const expected = Array.from({ length: 60 }, (_, k) => {
          const i = Math.floor(k / 2) * 100 + (k % 2) * 50 + 7
          return `p${String(Math.floor(i / 100)).padStart(2, "0")}/q${String(i % 100).padStart(3, "0")}.ts:2: found ${i}`
        })
        expect(outputOf(yield* call(big.ws, "search_files", { pattern: "found", max_results: 1000 })).split("\n")).toEqual(expected)
        const capped = outputOf(yield* call(big.ws, "search_files", { pattern: "found", max_results: 5 })).split("\n")
        expect(capped.slice(0, 5)).toEqual(expected.slice(0, 5))
        expect(capped[5]).toContain("(showing the first 5 matching lines; there are more")
      } finally {
        big.remove()
      }
    }), { timeout: 60_000 })
})


describe.skipIf(process.platform !== "linux")("a search worker", () => {
  it.effect("opens a job's files through the directory's descriptor, whatever its path leads to meanwhile", () =>
    Effect.gen(function*() {
      const { outside, ws } = fixture
      const place = Path.join(ws, "moving")
      const twin = Path.join(outside, "twin")
      Fs.mkdirSync(place)
      Fs.mkdirSync(twin)
      const names = ["a.txt", "b.txt", "c.txt", "d.txt"]
      for (const name of names) {
        Fs.writeFileSync(Path.join(place, name), name === "c.txt" ? "nothing\n" : `needle inside ${name}\n`)
        Fs.writeFileSync(Path.join(twin, name), `needle secret ${name}\n`)
      }
      // the directory as a search holds it (acquired before the workers: closed after them)
      const held = yield* Effect.acquireRelease(
        Effect.sync(() => openDirectorySync(place)),
        (dir) => Effect.sync(() => closeSync(dir.fd, dir.path))
      )
      // then its path is made to lead outside
      Fs.renameSync(place, `${place}.moved`)
      Fs.symlinkSync(twin, place)
      // a literal, a case-insensitive literal, a regular expression: each prefilter as the matcher makes it
      const matchers = [
        compileMatcher("needle", { regex: false, caseSensitive: true }),
        compileMatcher("NEEDLE IN", { regex: false, caseSensitive: false }),
        compileMatcher("^needle\\s+\\w+side", { regex: true, caseSensitive: true })
      ]
      for (const matcher of matchers) {
        if (Result.isFailure(matcher)) return yield* Effect.die(matcher.failure)
        const workers = yield* startSearchWorkers(1, matcher.success.prefilter, FIRST_BLOCK_BYTES)
        const id = workers.submit(childOf(held.fd, held.path, ""), names)
        expect(id).toBeDefined()
        let answered: ReadonlyArray<Answered> = []
        while (answered.length === 0) {
          yield* workers.wait
          answered = workers.poll()
        }
        const answer = answered[0]?.answer
        expect(answered[0]?.id).toBe(id)
        expect(Array.from(answer?.codes ?? []), matcher.success.prefilter.kind).toEqual([FOUND, FOUND, NONE, FOUND])
        const text = Buffer.from(answer?.data ?? new Uint8Array()).toString("utf8")
        expect(text).toBe("needle inside a.txt\nneedle inside b.txt\nneedle inside d.txt\n")
        expect(Array.from(answer?.ends ?? [])).toEqual([20, 40, 60])
        // a job named by a path (not a descriptor) is not done by the worker at all
        const byPath = workers.submit(`${place}/`, names)
        answered = []
        while (answered.length === 0) {
          yield* workers.wait
          answered = workers.poll()
        }
        expect(answered[0]?.id).toBe(byPath)
        expect(Array.from(answered[0]?.answer?.codes ?? [])).toEqual([AGAIN, AGAIN, AGAIN, AGAIN])
        expect(workers.errors()).toEqual([])
      }
    }), { timeout: 30_000 })
})
