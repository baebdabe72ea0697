/**
 * Races between the workspace check and the use (issue 7): a real child process swaps a path
 * inside the workspace for a symbolic link (or a FIFO), back and forth in a tight loop, while
 * the file builtins run through the executor. Afterwards nothing may have landed outside, no
 * byte from outside may have been returned, and nothing may hang.
 *
 * A race is a number of calls, not a duration, and what it must show is that calls met the
 * swap, not how many calls a second the machine allows: on a loaded machine the calls and
 * the swapper get less CPU, and a floor on the calls made in 2 s failed there while nothing
 * had landed outside (issue 47 item 14).
 *
 * In the slow lane: each race is 150 writes or 300 reads beside a swapper in a tight loop, and
 * its CPU (0.5-1.4 s in the test process) grows with how often the calls meet the swap, which
 * depends on how the machine schedules the swapper.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { AgentMode } from "../../../src/index.js"
import { tempDir } from "../../helpers/tempDir.js"
import {
  call,
  expectCleanRefusal,
  expectRaced,
  leaks,
  race,
  READ_CALLS,
  report,
  settle,
  swapper,
  system,
  tally,
  tree,
  WRITE_CALLS
} from "./raceHarness.js"

describe("races between the workspace check and the use", () => {
  it.live("write_file while a directory is swapped for a symlink to outside: nothing lands outside", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("race-write-")
      const ws = Path.join(base, "ws")
      const outside = Path.join(base, "outside")
      Fs.mkdirSync(Path.join(ws, "d"), { recursive: true })
      Fs.mkdirSync(outside)
      const outcomes = yield* Effect.scoped(Effect.gen(function*() {
        yield* swapper(Path.join(ws, "d"), Path.join(ws, ".d-link"), outside)
        return yield* race(WRITE_CALLS, (i) =>
          Effect.map(
            call("write_file", { filepath: `d/f${i}.txt`, content: `content ${i}` }, { confirm: true }),
            (outcome) => ({ i, outcome })
          )
        )
      })).pipe(Effect.provide(system(ws)))
      settle(Path.join(ws, "d"))
      const counts = tally(outcomes.map((o) => o.outcome))
      yield* report("write_file, directory swap", { ...counts, outside: tree(outside).length })
      expect(tree(outside)).toEqual([])
      expectRaced(counts)
      const everything = tree(ws)
      for (const { i, outcome } of outcomes) {
        expectCleanRefusal(outcome)
        const found = everything.filter((p) => Path.basename(p) === `f${i}.txt`)
        // a refused write leaves nothing behind
        if (outcome.kind !== "ok") {
          expect(found, `f${i}.txt, refused`).toEqual([])
          continue
        }
        // the file is inside: under d/ (or a directory the swapper moved out of the way)
        expect(found.length, `f${i}.txt`).toBe(1)
        expect(Fs.readFileSync(Path.join(ws, found[0] ?? ""), "utf8")).toBe(`content ${i}`)
      }
      expect(everything.filter((p) => p.endsWith(".tmp"))).toEqual([])
    }))

  it.live("write_file of new nested directories under a swapped directory: nothing lands outside", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("race-nested-")
      const ws = Path.join(base, "ws")
      const outside = Path.join(base, "outside")
      Fs.mkdirSync(Path.join(ws, "d"), { recursive: true })
      Fs.mkdirSync(outside)
      const outcomes = yield* Effect.scoped(Effect.gen(function*() {
        yield* swapper(Path.join(ws, "d"), Path.join(ws, ".d-link"), outside)
        return yield* race(WRITE_CALLS, (i) =>
          call("write_file", { filepath: `d/n${i}/deeper/f.txt`, content: `nested ${i}` }, { confirm: true })
        )
      })).pipe(Effect.provide(system(ws)))
      settle(Path.join(ws, "d"))
      const counts = tally(outcomes)
      yield* report("write_file, nested directories", { ...counts, outside: tree(outside).length })
      expect(tree(outside)).toEqual([])
      expectRaced(counts)
      outcomes.forEach(expectCleanRefusal)
      expect(tree(ws).filter((p) => p.endsWith(".tmp"))).toEqual([])
      expect(counts.ok).toBe(tree(ws).filter((p) => p.endsWith(`deeper${Path.sep}f.txt`)).length)
    }))

  /** Reads `filepath` while `place` is swapped for a link to outside; no byte from outside may come back. */
  const readRace = (label: string, place: string, filepath: string, link: (outside: string) => string) =>
    Effect.gen(function*() {
      const base = yield* tempDir("race-read-")
      const ws = Path.join(base, "ws")
      const outside = Path.join(base, "outside")
      Fs.mkdirSync(Path.join(ws, "d"), { recursive: true })
      Fs.mkdirSync(outside)
      Fs.writeFileSync(Path.join(ws, filepath), "inside text\n")
      Fs.writeFileSync(Path.join(outside, "f.txt"), "OUTSIDE SECRET\n")
      const outcomes = yield* Effect.scoped(Effect.gen(function*() {
        yield* swapper(Path.join(ws, place), Path.join(ws, ".link"), link(outside))
        return yield* race(READ_CALLS, () => call("read_file", { filepath }, {}))
      })).pipe(Effect.provide(system(ws)))
      const counts = tally(outcomes)
      yield* report(label, { ...counts, leaked: leaks(outcomes) })
      expectRaced(counts)
      for (const outcome of outcomes) {
        expectCleanRefusal(outcome)
        if (outcome.kind === "ok") expect(outcome.result.output).toBe("inside text\n")
        if (outcome.kind === "refused") expect(outcome.result.error).not.toContain("SECRET")
      }
    })

  it.live("read_file while the file is swapped for a symlink to an outside file: no byte from outside", () =>
    readRace("read_file, file swap", "f.txt", "f.txt", (outside) => Path.join(outside, "f.txt")))

  it.live("read_file while a parent directory is swapped for a symlink to outside: no byte from outside", () =>
    readRace("read_file, directory swap", "d", "d/f.txt", (outside) => outside))

  it.live("read_file while the file is swapped for a FIFO: no hang, a clean refusal, later reads still work", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("race-fifo-")
      const ws = Path.join(base, "ws")
      Fs.mkdirSync(ws)
      Fs.writeFileSync(Path.join(ws, "f.txt"), "inside text\n")
      Fs.writeFileSync(Path.join(ws, "other.txt"), "other text\n")
      ChildProcess.execFileSync("mkfifo", [Path.join(ws, ".f-fifo")])
      const outcomes = yield* Effect.scoped(Effect.gen(function*() {
        yield* swapper(Path.join(ws, "f.txt"), Path.join(ws, ".f-fifo"))
        // a read that hangs is a failure of the test, not a stuck test (a read takes milliseconds, even on a loaded machine)
        return yield* race(READ_CALLS, () =>
          call("read_file", { filepath: "f.txt" }, {}).pipe(
            Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.fail(new Error("read_file hung on a FIFO")) })
          )
        )
      })).pipe(Effect.provide(system(ws)))
      const counts = tally(outcomes)
      const fifo = outcomes.filter((o) => o.kind === "refused" && /FIFO/.test(o.result.error ?? "")).length
      yield* report("read_file, FIFO swap", { ...counts, fifo, leaked: leaks(outcomes) })
      expectRaced(counts)
      for (const outcome of outcomes) {
        expectCleanRefusal(outcome)
        if (outcome.kind === "ok") expect(outcome.result.output).toBe("inside text\n")
      }
      expect(fifo).toBeGreaterThan(0)
      // more ordinary reads at once than libuv has threads: none is stuck behind a blocked open()
      const later = yield* Effect.forEach(
        Array.from({ length: 8 }, () => "other.txt"),
        (filepath) => call("read_file", { filepath }, {}),
        { concurrency: "unbounded" }
      ).pipe(
        Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.fail(new Error("later reads got no answer")) }),
        Effect.provide(system(ws))
      )
      for (const outcome of later) {
        expect(outcome.kind).toBe("ok")
        if (outcome.kind === "ok") expect(outcome.result.output).toBe("other text\n")
      }
    }))

  it.live("plan mode while plans/ is swapped for a symlink to src/: nothing lands in src/", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("race-plan-")
      Fs.mkdirSync(Path.join(ws, "plans"))
      Fs.mkdirSync(Path.join(ws, "src"))
      Fs.writeFileSync(Path.join(ws, "src", "index.ts"), "export {}\n")
      Fs.symlinkSync("src", Path.join(ws, ".plans-link"))
      const outcomes = yield* Effect.scoped(Effect.gen(function*() {
        yield* swapper(Path.join(ws, "plans"), Path.join(ws, ".plans-link"), "src")
        return yield* race(WRITE_CALLS, (i) =>
          call("write_file", { filepath: `plans/p${i}.md`, content: `plan ${i}` }, { confirm: true, mode: AgentMode.Plan })
        )
      })).pipe(Effect.provide(system(ws)))
      settle(Path.join(ws, "plans"))
      const counts = tally(outcomes)
      yield* report("plan mode, plans/ swap", { ...counts, inSrc: tree(Path.join(ws, "src")).length - 1 })
      expectRaced(counts)
      expect(tree(Path.join(ws, "src"))).toEqual(["index.ts"])
      outcomes.forEach(expectCleanRefusal)
      expect(counts.traversal).toBe(0)
      expect(tree(ws).filter((p) => p.endsWith(".tmp"))).toEqual([])
    }))
})

describe("plan mode without a race", () => {
  it.live("a plans/ that is a symlink to another folder of the workspace does not widen the scope", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("plan-link-")
      Fs.mkdirSync(Path.join(ws, "docs"))
      Fs.symlinkSync("docs", Path.join(ws, "plans"))
      const [planned, plain] = yield* Effect.all([
        call("write_file", { filepath: "plans/p.md", content: "plan" }, { confirm: true, mode: AgentMode.Plan }),
        call("write_file", { filepath: "plans/p.md", content: "plan" }, { confirm: true })
      ]).pipe(Effect.provide(system(ws)))
      expect(planned.kind).toBe("refused")
      if (planned.kind === "refused") expect(planned.result.errorCode).toBe("MODE_BLOCKED")
      // the same call outside plan mode writes through the link, inside the workspace
      expect(plain.kind).toBe("ok")
      expect(tree(Path.join(ws, "docs"))).toEqual(["p.md"])
      expect(Fs.readFileSync(Path.join(ws, "docs", "p.md"), "utf8")).toBe("plan")
    }))
})
