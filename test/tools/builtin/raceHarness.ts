/**
 * The harness of the race tests (`races.slow.test.ts`): a child process that swaps a path of
 * the workspace for a symbolic link (or a FIFO) in a tight loop, calls through the executor
 * with their outcomes sorted, and the checks every race makes afterwards.
 */
import { expect } from "@effect/vitest"
import { Cause, Effect, Exit, Result } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { PathTraversalError, ToolSystem, Workspace } from "../../../src/index.js"
import type { ExecuteOptions, ToolExecutionResult } from "../../../src/index.js"
import { readFile } from "../../../src/tools/builtin/readFile.js"
import { writeFile } from "../../../src/tools/builtin/writeFile.js"

/** How many calls a race makes (a write costs more than a read). */
export const WRITE_CALLS = 150
export const READ_CALLS = 300
/**
 * How many calls of a race must have met the swap for the race to count. Without the swapper
 * every call here succeeds, so each refusal or traversal defect is a call that saw the link,
 * the FIFO or the gap between two renames; more than half the calls do, on an idle or a
 * loaded machine alike.
 */
export const MIN_MET = 20
/**
 * A race still going after this long stops where it is (its calls are checked all the same):
 * on a machine loaded far past its cores a race can take that long, and the test's own
 * timeout is 30 s. A call that hangs is caught by its own timeout, as in the FIFO race.
 */
export const RACE_LIMIT_MS = 10_000

/**
 * The swapper, run with `node -e`: moves `place` aside, renames `spare` (a symlink or a FIFO)
 * into its place, then back, in a tight loop until killed (or after 30 s at most, should the
 * test process die without killing it). A real directory that a tool created in the gap is
 * moved out of the way so the loop goes on. Prints "go" once the first swap is done.
 */
const SWAPPER = String.raw`
const fs = require("node:fs")
const [place, aside, spare, relink] = process.argv.slice(1)
const stop = Date.now() + 30000
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
export const swapper = (place: string, spare: string, relink = "") =>
  Effect.acquireRelease(
    Effect.callback<ChildProcess.ChildProcess>((resume) => {
      const child = ChildProcess.spawn(process.execPath, ["-e", SWAPPER, place, `${place}.aside`, spare, relink], {
        stdio: ["ignore", "pipe", "inherit"]
      })
      child.stdout.once("data", () => resume(Effect.succeed(child)))
      child.once("error", (error) => resume(Effect.die(error)))
    }).pipe(Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.fail(new Error("the swapper did not start")) })),
    (child) =>
      Effect.callback<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGKILL")
      })
  )

/**
 * Puts the swapped path back in its place after the swapper stopped. What stands there is
 * the link (removed) or a directory a call made in the gap (moved beside it, so that the files
 * written into it are still found).
 */
export const settle = (place: string) => {
  const aside = `${place}.aside`
  if (!Fs.existsSync(aside)) return
  const there = Fs.lstatSync(place, { throwIfNoEntry: false })
  if (there?.isDirectory()) Fs.renameSync(place, `${place}.settled`)
  else if (there !== undefined) Fs.unlinkSync(place)
  Fs.renameSync(aside, place)
}

/** The paths below `dir` + `rel`, relative to `dir`; a link is listed, never followed. */
const walk = (dir: string, rel: string): Array<string> =>
  Fs.readdirSync(Path.join(dir, rel), { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(rel, entry.name)
    return entry.isDirectory() ? [path, ...walk(dir, path)] : [path]
  })

/**
 * Every path below `dir` (files, links, directories), relative to it. Links are not followed
 * (Node's recursive `readdirSync` follows them): a file that went out through the swapped link
 * must not be counted as inside.
 */
export const tree = (dir: string): ReadonlyArray<string> => walk(dir, "").sort()

/** What one call came to. */
export type Outcome =
  | { readonly kind: "ok"; readonly result: ToolExecutionResult }
  | { readonly kind: "refused"; readonly result: ToolExecutionResult }
  | { readonly kind: "traversal" }

/** Runs one call; a `PathTraversalError` defect (the resolver saw the link) is a refusal too. */
export const call = (name: string, args: Record<string, unknown>, options: ExecuteOptions) =>
  Effect.gen(function*() {
    const tools = yield* ToolSystem
    const exit = yield* Effect.exit(tools.execute(name, args, options))
    if (Exit.isSuccess(exit)) {
      return exit.value.success
        ? { kind: "ok", result: exit.value } satisfies Outcome
        : { kind: "refused", result: exit.value } satisfies Outcome
    }
    const defect = Cause.findDefect(exit.cause)
    if (Result.isSuccess(defect) && defect.success instanceof PathTraversalError) return { kind: "traversal" } satisfies Outcome
    return yield* Effect.die(new Error(`unexpected failure: ${Cause.pretty(exit.cause)}`))
  })

/** Runs `one(i)` `calls` times, one call after another (fewer if `RACE_LIMIT_MS` passes first). */
export const race = <A, E, R>(calls: number, one: (i: number) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const outcomes: Array<A> = []
    const end = Date.now() + RACE_LIMIT_MS
    while (outcomes.length < calls && Date.now() < end) outcomes.push(yield* one(outcomes.length))
    return outcomes
  })

/** The system the races call through: the two file builtins, on the workspace `ws`. */
export const system = (ws: string) =>
  ToolSystem.layerNode({ builtins: false, tools: [readFile, writeFile], workspace: Workspace.layerFixed(ws) })

/** Prints a race's counts when `SAFE_FS_REPORT=1`, to see how a race went on a given machine. */
export const report = (label: string, counts: Record<string, unknown>) =>
  Effect.sync(() => {
    if (process.env.SAFE_FS_REPORT === "1") process.stderr.write(`${label}: ${JSON.stringify(counts)}\n`)
  })

/** How many calls a race made, and how they ended. */
export const tally = (outcomes: ReadonlyArray<Outcome>) => ({
  calls: outcomes.length,
  ok: outcomes.filter((o) => o.kind === "ok").length,
  refused: outcomes.filter((o) => o.kind === "refused").length,
  traversal: outcomes.filter((o) => o.kind === "traversal").length,
  // the kinds of refusal (digits dropped), for the report
  reasons: [...new Set(outcomes.flatMap((o) => o.kind === "refused" ? [(o.result.error ?? "").replace(/\d+/g, "N")] : []))]
})

/** The race took place: at least `MIN_MET` calls met the swap (see `MIN_MET`). */
export const expectRaced = (counts: ReturnType<typeof tally>) =>
  expect(counts.refused + counts.traversal, `calls that met the swap: ${JSON.stringify(counts)}`)
    .toBeGreaterThanOrEqual(MIN_MET)

/** Reads that returned something other than the inside file's text. */
export const leaks = (outcomes: ReadonlyArray<Outcome>) =>
  outcomes.filter((o) => o.kind === "ok" && o.result.output !== "inside text\n").length

/** A result error a caller can act on: a tool error naming the change, never a crash. */
export const expectCleanRefusal = (outcome: Outcome) => {
  if (outcome.kind !== "refused") return
  expect(outcome.result.errorCode, outcome.result.error ?? "").toMatch(/^(TOOL_ERROR|MODE_BLOCKED)$/)
  expect(outcome.result.error ?? "").not.toContain("crashed")
}
