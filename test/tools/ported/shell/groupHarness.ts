/**
 * What the process group tests share: a spawn of a group in a test directory, and a process's
 * state as `/proc` tells it.
 */
import * as Fs from "node:fs"
import { spawnGroup } from "../../../../src/tools/ported/shell/processGroup.js"

/** `spawnGroup` of `file` in `dir()` with only PATH in its environment. */
export const spawnIn = (dir: () => string) => (file: string, args: ReadonlyArray<string>, maxBytes = 1024) =>
  spawnGroup({ file, args, cwd: dir(), env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, maxBytes })

/** Field 3 (state) and field 5 (process group) of `/proc/PID/stat`, or undefined when it is gone. */
export const procState = (pid: number): { readonly state: string; readonly pgrp: number } | undefined => {
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "latin1")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return { state: fields[0] ?? "", pgrp: Number(fields[2]) }
  } catch {
    return undefined
  }
}
