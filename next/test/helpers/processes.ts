/**
 * Looking at processes a test started, through `/proc` (Linux): whether one still runs, and
 * the pid a shell command wrote into a file.
 */
import { Effect } from "effect"
import * as Fs from "node:fs"
import { until } from "./testClock.js"

/** Whether process `pid` runs (a zombie does not). */
export const running = (pid: number): boolean => {
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "latin1")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

/** What `file` holds, trimmed ("" while it does not exist). */
const contents = (file: string): string => (Fs.existsSync(file) ? Fs.readFileSync(file, "utf8").trim() : "")

/**
 * Waits (5 s of real time at most, on any clock: a TestClock too) until `file` holds a number,
 * and gives it; dies when it never does.
 */
export const pidIn = (file: string): Effect.Effect<number> =>
  Effect.map(until(() => /^\d+$/.test(contents(file)), `a pid in ${file}`, 5_000), () => Number(contents(file)))
