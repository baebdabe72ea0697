/**
 * Races between the workspace check and the use (issue 7): a real child process swaps a path
 * inside the workspace for a symbolic link (or a FIFO), back and forth in a tight loop, while
 * the file builtins run through the executor. Afterwards nothing may have landed outside, no
 * byte from outside may have been returned, and nothing may hang. Each race is bounded in
 * time (about 2 s of calls).
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { AgentMode, PathTraversalError, ToolSystem, Workspace } from "../../../src/index.js"
import type { ExecuteOptions, ToolExecutionResult } from "../../../src/index.js"
import { readFile } from "../../../src/tools/builtin/readFile.js"
import { writeFile } from "../../../src/tools/builtin/writeFile.js"
import { tempDir } from "../../helpers/tempDir.js"

/** How long each race runs its calls, and the most calls it makes. */
const RACE_MS = 2000
const MAX_CALLS = 300

/**
 * The swapper, run with `node -e`: moves `place` aside, renames `spare` (a symlink or a FIFO)
 * into its place, then back, in a tight loop until killed (or after 20 s at most). A real
 * directory that a tool created in the gap is moved out of the way so the loop goes on.
 * Prints "go" once the first swap is done.
 */
const SWAPPER = String.raw`
const fs = require("node:fs")
const [place, aside, spare, relink] = process.argv.slice(1)
const stop = Date.now() + 20000
const mv = (a, b) => { try { fs.renameSync(a, b); return true } catch { return false } }
let n = 0
for (;;) {
  if (relink !== "") { try { fs.lstatSync(spare) } catch { try { fs.symlinkSync(relink, spare) } catch {} } }
  mv(place, aside)
  mv(spare, place)
  mv(place, spare)
  if (!mv(aside, place)) {
    try { if (fs.lstatSync(place).isDirectory() && fs.existsSync(aside)) mv(place, place + ".extra" + n) } catch {}
    mv(aside, place)
  }
  if (++n === 1) process.stdout.write("go\n")
  if ((n & 255) === 0 && Date.now() > stop) break
}
`

/** Starts the swapper in a child process; it is killed (by its pid) when the scope closes. */
const swapper = (place: string, spare: string, relink = "") =>
  Effect.acquireRelease(
    Effect.async<ChildProcess.ChildProcess>((resume) => {
      const child = ChildProcess.spawn(process.execPath, ["-e", SWAPPER, place, `${place}.aside`, spare, relink], {
        stdio: ["ignore", "pipe", "inherit"]
      })
      child.stdout.once("data", () => resume(Effect.succeed(child)))
      child.once("error", (error) => resume(Effect.die(error)))
    }).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the swapper did not start") })),
    (child) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGKILL")
      })
  )

/** Puts the swapped path back in its place after the swapper stopped. */
const settle = (place: string) => {
  const aside = `${place}.aside`
  if (Fs.existsSync(aside)) {
    Fs.rmSync(place, { force: true, recursive: false })
    Fs.renameSync(aside, place)
  }
}

/** Every path below `dir` (files, links, directories), relative to it. */
const tree = (dir: string): ReadonlyArray<string> =>
  Fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()

/** What one call came to. */
type Outcome =
  | { readonly kind: "ok"; readonly result: ToolExecutionResult }
  | { readonly kind: "refused"; readonly result: ToolExecutionResult }
  | { readonly kind: "traversal" }

/** Runs one call; a `PathTraversalError` defect (the resolver saw the link) is a refusal too. */
const call = (name: string, args: Record<string, unknown>, options: ExecuteOptions) =>
  Effect.gen(function*() {
    const tools = yield* ToolSystem
    const exit = yield* Effect.exit(tools.execute(name, args, options))
    if (Exit.isSuccess(exit)) {
      return exit.value.success
        ? { kind: "ok", result: exit.value } satisfies Outcome
        : { kind: "refused", result: exit.value } satisfies Outcome
    }
    const defect = Cause.dieOption(exit.cause)
    if (Option.isSome(defect) && defect.value instanceof PathTraversalError) return { kind: "traversal" } satisfies Outcome
    return yield* Effect.die(new Error(`unexpected failure: ${Cause.pretty(exit.cause)}`))
  })

/** Runs `one(i)` again and again for `RACE_MS` (at most `MAX_CALLS` times). */
const race = <A, E, R>(one: (i: number) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const outcomes: Array<A> = []
    const end = Date.now() + RACE_MS
    while (outcomes.length < MAX_CALLS && Date.now() < end) outcomes.push(yield* one(outcomes.length))
    return outcomes
  })

const system = (ws: string) =>
  ToolSystem.layerNode({ builtins: false, tools: [readFile, writeFile], workspace: Workspace.layerFixed(ws) })

const report = (label: string, counts: Record<string, unknown>) =>
  Effect.sync(() => {
    if (process.env.SAFE_FS_REPORT === "1") process.stderr.write(`${label}: ${JSON.stringify(counts)}\n`)
  })

const tally = (outcomes: ReadonlyArray<Outcome>) => ({
  calls: outcomes.length,
  ok: outcomes.filter((o) => o.kind === "ok").length,
  refused: outcomes.filter((o) => o.kind === "refused").length,
  traversal: outcomes.filter((o) => o.kind === "traversal").length,
  // the kinds of refusal (digits dropped), for the report
  reasons: [...new Set(outcomes.flatMap((o) => o.kind === "refused" ? [(o.result.error ?? "").replace(/\d+/g, "N")] : []))]
})

/** Reads that returned something other than the inside file's text. */
const leaks = (outcomes: ReadonlyArray<Outcome>) =>
  outcomes.filter((o) => o.kind === "ok" && o.result.output !== "inside text\n").length

/** A result error a caller can act on: a tool error naming the change, never a crash. */
const expectCleanRefusal = (outcome: Outcome) => {
  if (outcome.kind !== "refused") return
  expect(outcome.result.errorCode, outcome.result.error ?? "").toMatch(/^(TOOL_ERROR|MODE_BLOCKED)$/)
  expect(outcome.result.error ?? "").not.toContain("crashed")
}

describe("races between the workspace check and the use", () => {
  it.scopedLive("write_file while a directory is swapped for a symlink to outside: nothing lands outside", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("race-write-")
      const ws = Path.join(base, "ws")
      const outside = Path.join(base, "outside")
      Fs.mkdirSync(Path.join(ws, "d"), { recursive: true })
      Fs.mkdirSync(outside)
      const outcomes = yield* Effect.scoped(Effect.gen(function*() {
        yield* swapper(Path.join(ws, "d"), Path.join(ws, ".d-link"), outside)
        return yield* race((i) =>
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
      expect(counts.calls).toBeGreaterThan(50)
      const everything = tree(ws)
      for (const { i, outcome } of outcomes) {
        expectCleanRefusal(outcome)
        if (outcome.kind !== "ok") continue
        // the file is inside: under d/ (or a directory the swapper moved out of the way)
        const found = everything.filter((p) => Path.basename(p) === `f${i}.txt`)
        expect(found.length, `f${i}.txt`).toBe(1)
        expect(Fs.readFileSync(Path.join(ws, found[0] ?? ""), "utf8")).toBe(`content ${i}`)
      }
      expect(everything.filter((p) => p.endsWith(".tmp"))).toEqual([])
    }))

  it.scopedLive("write_file of new nested directories under a swapped directory: nothing lands outside", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("race-nested-")
      const ws = Path.join(base, "ws")
      const outside = Path.join(base, "outside")
      Fs.mkdirSync(Path.join(ws, "d"), { recursive: true })
      Fs.mkdirSync(outside)
      const outcomes = yield* Effect.scoped(Effect.gen(function*() {
        yield* swapper(Path.join(ws, "d"), Path.join(ws, ".d-link"), outside)
        return yield* race((i) =>
          call("write_file", { filepath: `d/n${i}/deeper/f.txt`, content: `nested ${i}` }, { confirm: true })
        )
      })).pipe(Effect.provide(system(ws)))
      settle(Path.join(ws, "d"))
      const counts = tally(outcomes)
      yield* report("write_file, nested directories", { ...counts, outside: tree(outside).length })
      expect(tree(outside)).toEqual([])
      expect(counts.calls).toBeGreaterThan(50)
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
        return yield* race(() => call("read_file", { filepath }, {}))
      })).pipe(Effect.provide(system(ws)))
      const counts = tally(outcomes)
      yield* report(label, { ...counts, leaked: leaks(outcomes) })
      expect(counts.calls).toBeGreaterThan(50)
      for (const outcome of outcomes) {
        expectCleanRefusal(outcome)
        if (outcome.kind === "ok") expect(outcome.result.output).toBe("inside text\n")
        if (outcome.kind === "refused") expect(outcome.result.error).not.toContain("SECRET")
      }
    })

  it.scopedLive("read_file while the file is swapped for a symlink to an outside file: no byte from outside", () =>
    readRace("read_file, file swap", "f.txt", "f.txt", (outside) => Path.join(outside, "f.txt")))

  it.scopedLive("read_file while a parent directory is swapped for a symlink to outside: no byte from outside", () =>
    readRace("read_file, directory swap", "d", "d/f.txt", (outside) => outside))

  it.scopedLive("read_file while the file is swapped for a FIFO: no hang, a clean refusal, later reads still work", () =>
    Effect.gen(function*() {
      const base = yield* tempDir("race-fifo-")
      const ws = Path.join(base, "ws")
      Fs.mkdirSync(ws)
      Fs.writeFileSync(Path.join(ws, "f.txt"), "inside text\n")
      Fs.writeFileSync(Path.join(ws, "other.txt"), "other text\n")
      ChildProcess.execFileSync("mkfifo", [Path.join(ws, ".f-fifo")])
      const outcomes = yield* Effect.scoped(Effect.gen(function*() {
        yield* swapper(Path.join(ws, "f.txt"), Path.join(ws, ".f-fifo"))
        // a read that hangs is a failure of the test, not a stuck test
        return yield* race(() =>
          call("read_file", { filepath: "f.txt" }, {}).pipe(
            Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => new Error("read_file hung on a FIFO") })
          )
        )
      })).pipe(Effect.provide(system(ws)))
      const counts = tally(outcomes)
      yield* report("read_file, FIFO swap", { ...counts, leaked: leaks(outcomes) })
      expect(counts.calls).toBeGreaterThan(50)
      expect(counts.refused).toBeGreaterThan(0)
      for (const outcome of outcomes) {
        expectCleanRefusal(outcome)
        if (outcome.kind === "ok") expect(outcome.result.output).toBe("inside text\n")
      }
      expect(outcomes.some((o) => o.kind === "refused" && /FIFO/.test(o.result.error ?? ""))).toBe(true)
      // more ordinary reads at once than libuv has threads: none is stuck behind a blocked open()
      const later = yield* Effect.forEach(
        Array.from({ length: 8 }, () => "other.txt"),
        (filepath) => call("read_file", { filepath }, {}),
        { concurrency: "unbounded" }
      ).pipe(
        Effect.timeoutFail({ duration: "3 seconds", onTimeout: () => new Error("later reads got no answer") }),
        Effect.provide(system(ws))
      )
      for (const outcome of later) {
        expect(outcome.kind).toBe("ok")
        if (outcome.kind === "ok") expect(outcome.result.output).toBe("other text\n")
      }
    }))

  it.scopedLive("plan mode while plans/ is swapped for a symlink to src/: nothing lands in src/", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("race-plan-")
      Fs.mkdirSync(Path.join(ws, "plans"))
      Fs.mkdirSync(Path.join(ws, "src"))
      Fs.writeFileSync(Path.join(ws, "src", "index.ts"), "export {}\n")
      Fs.symlinkSync("src", Path.join(ws, ".plans-link"))
      const outcomes = yield* Effect.scoped(Effect.gen(function*() {
        yield* swapper(Path.join(ws, "plans"), Path.join(ws, ".plans-link"), "src")
        return yield* race((i) =>
          call("write_file", { filepath: `plans/p${i}.md`, content: `plan ${i}` }, { confirm: true, mode: AgentMode.Plan })
        )
      })).pipe(Effect.provide(system(ws)))
      settle(Path.join(ws, "plans"))
      const counts = tally(outcomes)
      yield* report("plan mode, plans/ swap", { ...counts, inSrc: tree(Path.join(ws, "src")).length - 1 })
      expect(counts.calls).toBeGreaterThan(50)
      expect(tree(Path.join(ws, "src"))).toEqual(["index.ts"])
      outcomes.forEach(expectCleanRefusal)
      expect(counts.traversal).toBe(0)
      expect(tree(ws).filter((p) => p.endsWith(".tmp"))).toEqual([])
    }))
})

describe("plan mode without a race", () => {
  it.scopedLive("a plans/ that is a symlink to another folder of the workspace does not widen the scope", () =>
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
