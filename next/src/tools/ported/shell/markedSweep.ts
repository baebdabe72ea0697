/**
 * Finds the processes a command left behind outside its process group (a child that called
 * `setsid`, a daemon that double-forked) by a mark in their environment: each run gets a
 * unique `ETS_RUN_ID`, which every descendant inherits unless it clears its environment. After
 * the run, `/proc/<pid>/environ` of the user's own processes is searched for the mark and each
 * one found gets `SIGTERM`, then `SIGKILL` after the grace period, as the group does.
 *
 * Bounded: at most `SWEEP_MAX_ENTRIES` entries of `/proc` and `SWEEP_SCAN_BUDGET_MS` per scan,
 * with asynchronous reads (the event loop is never held). A process that vanishes meanwhile is
 * skipped. Without `/proc` (not Linux) nothing is swept: the tool's description says so.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import { KILL_GRACE_MS, realSleep } from "./processGroup.js"

/** The environment variable that marks a run's processes. */
export const RUN_MARK_VARIABLE = "ETS_RUN_ID"

/** Entries of `/proc` read at most per scan. */
export const SWEEP_MAX_ENTRIES = 65_536

/** Real time one scan of `/proc` may take at most. */
export const SWEEP_SCAN_BUDGET_MS = 2000

/** How often the marked processes are checked during the grace period. */
const POLL_MS = 50

/** A fresh, unguessable mark for one run. */
export const newRunMark = (): string => Crypto.randomBytes(12).toString("hex")

/** Whether an `environ` file (NUL-separated `NAME=value`) holds the mark. */
const holdsMark = (environ: Buffer, entry: Buffer): boolean =>
  environ.subarray(0, entry.length).equals(entry) || environ.includes(Buffer.concat([Buffer.from([0]), entry]))

/** The pids of the user's own live processes whose environment holds `mark` (never this process). */
export const findMarked = (mark: string): Effect.Effect<ReadonlyArray<number>> =>
  Effect.promise(async () => {
    const entry = Buffer.from(`${RUN_MARK_VARIABLE}=${mark}\u0000`)
    const uid = process.getuid?.()
    let entries: Array<string>
    try {
      entries = await Fs.promises.readdir("/proc")
    } catch {
      return [] // no /proc: the limit the description states
    }
    const deadline = Date.now() + SWEEP_SCAN_BUDGET_MS
    const found: Array<number> = []
    for (const name of entries.slice(0, SWEEP_MAX_ENTRIES)) {
      if (Date.now() > deadline) break
      if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
      try {
        const stat = await Fs.promises.stat(`/proc/${name}`)
        if (uid !== undefined && stat.uid !== uid) continue
        // a zombie's environ is empty: only live processes match
        if (holdsMark(await Fs.promises.readFile(`/proc/${name}/environ`), entry)) found.push(Number(name))
      } catch {
        continue // gone meanwhile, or not ours to read
      }
    }
    return found
  })

/** Sends `signal` to each pid (one that is gone is skipped). */
const signalAll = (pids: ReadonlyArray<number>, signal: NodeJS.Signals): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, signal)
    } catch {
      // ESRCH: it ended meanwhile
    }
  }
}

/**
 * Ends every process marked with `mark`: `SIGTERM`, then, after `KILL_GRACE_MS` at most, a
 * fresh scan (new children, no reused pid) whose processes get `SIGKILL`.
 */
export const sweepMarked = (mark: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    const first = yield* findMarked(mark)
    if (first.length === 0) return
    signalAll(first, "SIGTERM")
    for (let waited = 0; waited < KILL_GRACE_MS; waited += POLL_MS) {
      yield* realSleep(POLL_MS)
      if ((yield* findMarked(mark)).length === 0) return
    }
    for (let round = 0; round < 3; round++) {
      const left = yield* findMarked(mark)
      if (left.length === 0) return
      signalAll(left, "SIGKILL")
      yield* realSleep(POLL_MS)
    }
    yield* Effect.logWarning(`run_command: processes marked ${RUN_MARK_VARIABLE}=${mark} survived SIGKILL`)
  })
