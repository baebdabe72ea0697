/**
 * Looking at processes a test started, through `/proc` (Linux): whether one still runs, and
 * the pid a shell command wrote into a file.
 */
import { Effect } from "effect"
import * as Fs from "node:fs"

/** Whether process `pid` runs (a zombie does not). */
export const running = (pid: number): boolean => {
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "latin1")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

/** Waits (5 s at most) until `file` holds a number, and gives it; dies when it never does. */
export const pidIn = (file: string): Effect.Effect<number> =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      const text = Fs.existsSync(file) ? Fs.readFileSync(file, "utf8").trim() : ""
      if (/^\d+$/.test(text)) return Number(text)
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage(`no pid in ${file}`)
  })
