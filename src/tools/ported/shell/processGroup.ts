/**
 * A child process in a process group of its own, owned by a `Scope`: when the scope closes
 * (the command finished, timed out, or the caller was interrupted) the whole group is signalled,
 * `SIGTERM` first and `SIGKILL` after a grace period, so nothing the command started in the
 * background outlives it. Its output is read as it comes, each stream kept up to a byte cap
 * and only counted past it.
 *
 * Why `node:child_process` and not `effect/process`'s `ChildProcess` (which the git tools use):
 * the Node spawner does spawn detached and signals the group when its scope closes, but
 * (1) without `forceKillAfter` only with `SIGTERM`, then waits for the leader's exit with no
 * deadline, so a command that ignores `SIGTERM` (`trap '' TERM`) would hang the interruption
 * forever; (2) it asks whether the group is left with `kill(-pgid, 0)`, which counts zombies, so
 * a group left with a zombie waits out the whole grace period; (3) a leader ended by a signal is
 * a failure of `exitCode`, not the signal's name. Here each of these is explicit, because no
 * orphaned process is the point.
 *
 * Limit: a process that leaves the group on purpose (`setsid`, a daemon that double-forks into
 * a new session) escapes it; `run_command` finds those by a mark in their environment
 * (`markedSweep.ts`), and only a cgroup (a container) could hold one that also clears it.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import type { Readable } from "node:stream"
import { decodeUtf8, decodeUtf8Prefix } from "../../shared/text.js"

/** How long the group has after `SIGTERM` before it gets `SIGKILL`. */
export const KILL_GRACE_MS = 1500

/** How long, at most, the end of the group is awaited after `SIGKILL`. */
const KILL_SETTLE_MS = 1000

/** How often the group is checked for survivors during the grace period. */
const POLL_MS = 50

/** How long output is still read after the leader exited (background processes may hold the pipes open). */
export const DRAIN_AFTER_EXIT_MS = 200

/** How the leader ended: its exit status, or the signal that ended it. */
export interface Ended {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** One output stream, kept up to its cap. */
export interface Captured {
  /** The text kept (a UTF-8 character cut by the cap is dropped). */
  readonly text: string
  /** Every byte the stream produced, kept or not. */
  readonly totalBytes: number
  /** The cap was reached: `text` is the start of the output only. */
  readonly cut: boolean
}

/** A running process group. */
export interface GroupProcess {
  /** The leader's pid, which is also the group's id. */
  readonly pid: number
  /** Waits for the leader to end. */
  readonly ended: Effect.Effect<Ended>
  /** Waits at most `waitMs` (real time) for both output streams to end, then returns what was kept. */
  readonly output: (waitMs: number) => Effect.Effect<{ readonly stdout: Captured; readonly stderr: Captured }>
}

/** What is spawned. */
export interface SpawnOptions {
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Record<string, string>
  /** Bytes kept of each of stdout and stderr. */
  readonly maxBytes: number
}

/** A sleep on the real clock: killing processes must not wait on a test clock. */
export const realSleep = (ms: number): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

/** Sends `signal` to every process of the group; `false` when none is left (or none may be signalled). */
const signalGroup = (pgid: number, signal: NodeJS.Signals | 0): boolean => {
  try {
    process.kill(-pgid, signal)
    return true
  } catch {
    // ESRCH: the group is empty; EPERM: nothing in it is ours to signal any more
    return false
  }
}

/**
 * Whether a process of the group `pgid` still runs, asked again and again while a group is
 * killed. `kill(-pgid, 0)` also counts zombies (dead children not yet reaped by their new
 * parent, which can take a while under some inits), so on Linux a group it still finds is looked
 * up in `/proc`, where a zombie's state is `Z`. The process found running is looked at first the
 * next time: a whole scan of `/proc` reads every process's stat file, and a group that ignores
 * `SIGTERM` is asked about every `POLL_MS` of the grace period.
 */
const makeGroupAlive = (pgid: number): Effect.Effect<boolean> => {
  const found: { pid: string | undefined } = { pid: undefined }
  return Effect.suspend(() =>
    signalGroup(pgid, 0)
      ? (process.platform === "linux" ? liveInProc(pgid, found) : Effect.succeed(true))
      : Effect.succeed(false)
  )
}

/** `/proc/<pid>/stat`, or undefined when the process is gone. */
const statOf = async (pid: string): Promise<string | undefined> => {
  try {
    return await Fs.promises.readFile(`/proc/${pid}/stat`, "latin1")
  } catch {
    return undefined // gone meanwhile
  }
}

/** Whether a stat line is of a process of the group `pgid` that is not a zombie. */
const runsIn = (stat: string, pgid: number): boolean => {
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ")"
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return Number(fields[2]) === pgid && fields[0] !== "Z"
}

/**
 * Whether `/proc` shows a process of the group `pgid` that is not a zombie (`true` when it cannot
 * tell): `found.pid` first, then every process; `found.pid` is the one found running.
 */
const liveInProc = (pgid: number, found: { pid: string | undefined }): Effect.Effect<boolean> =>
  Effect.promise(async () => {
    if (found.pid !== undefined) {
      const stat = await statOf(found.pid)
      if (stat !== undefined && runsIn(stat, pgid)) return true
      found.pid = undefined
    }
    let entries: Array<string>
    try {
      entries = await Fs.promises.readdir("/proc")
    } catch {
      return true
    }
    for (const entry of entries) {
      // the other entries have no stat file, or are this process (self, thread-self), never in a child's group
      if (!/^\d+$/.test(entry)) continue
      const stat = await statOf(entry)
      if (stat !== undefined && runsIn(stat, pgid)) {
        found.pid = entry
        return true
      }
    }
    return false
  })

/**
 * `SIGTERM` to the group, then `SIGKILL` to whatever still runs after the grace period; returns
 * once no process of the group runs (or, after `SIGKILL`, `KILL_SETTLE_MS` at most).
 */
export const killGroup = (pgid: number): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (!signalGroup(pgid, "SIGTERM")) return
    const groupAlive = makeGroupAlive(pgid)
    for (let waited = 0; waited < KILL_GRACE_MS; waited += POLL_MS) {
      yield* realSleep(POLL_MS)
      if (!(yield* groupAlive)) return
    }
    signalGroup(pgid, "SIGKILL")
    // SIGKILL cannot be caught, but a loaded machine takes a moment to end the processes
    for (let waited = 0; waited < KILL_SETTLE_MS && (yield* groupAlive); waited += POLL_MS) {
      yield* realSleep(POLL_MS)
    }
  })

/** Reads a stream as it comes, keeping its first `maxBytes` bytes and counting the rest. */
const capture = (stream: Readable, maxBytes: number) => {
  const chunks: Array<Buffer> = []
  let kept = 0
  let total = 0
  const done = Deferred.makeUnsafe<void>()
  const finish = () => Deferred.doneUnsafe(done, Effect.void)
  stream.on("data", (chunk: Buffer) => {
    total += chunk.length
    if (kept < maxBytes) {
      const part = chunk.subarray(0, maxBytes - kept)
      chunks.push(part)
      kept += part.length
    }
  })
  // a pipe that ends or fails is then closed (autoDestroy): "close" alone would do, the other two
  // end the wait a moment sooner
  stream.once("end", finish)
  stream.once("close", finish)
  stream.once("error", finish)
  return {
    done: Deferred.await(done),
    result: (): Captured => {
      const bytes = Buffer.concat(chunks)
      const cut = total > kept
      return { text: cut ? decodeUtf8Prefix(bytes, kept) : decodeUtf8(bytes), totalBytes: total, cut }
    }
  }
}

type Child = ChildProcess.ChildProcessByStdio<null, Readable, Readable>

/** Wires a spawned child's streams and exit into a `GroupProcess`. */
const watch = (child: Child, pid: number, maxBytes: number): GroupProcess => {
  const stdout = capture(child.stdout, maxBytes)
  const stderr = capture(child.stderr, maxBytes)
  const exit = Deferred.makeUnsafe<Ended>()
  const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
    Deferred.doneUnsafe(exit, Effect.succeed({ code, signal }))
  // no exit can come before this point: watch runs on "spawn", which Node emits on the next tick
  // after starting the process, before any exit is read
  child.once("exit", onExit)
  const bothDone = Effect.andThen(stdout.done, stderr.done)
  return {
    pid,
    ended: Deferred.await(exit),
    output: (waitMs) =>
      Effect.raceFirst(bothDone, realSleep(waitMs)).pipe(
        Effect.map(() => ({ stdout: stdout.result(), stderr: stderr.result() }))
      )
  }
}

/**
 * Spawns `file args` in a new process group (stdin closed), owned by the scope: closing the
 * scope kills the group (see the module doc). Fails with the spawn error.
 */
export const spawnGroup = (options: SpawnOptions): Effect.Effect<GroupProcess, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly child: Child; readonly group: GroupProcess }, Error>((resume) => {
      let child: Child
      try {
        // `node:child_process` loaded on the first spawn, not with the module: it is a few
        // milliseconds of every start of the command line, most of which spawn nothing
        child = process.getBuiltinModule("node:child_process").spawn(options.file, [...options.args], {
          cwd: options.cwd,
          env: options.env,
          // a new process group led by the child: the group's id is the child's pid
          detached: true,
          stdio: ["ignore", "pipe", "pipe"]
        })
      } catch (error) {
        // an argument Node refuses (a NUL byte): nothing was started
        resume(Effect.fail(error instanceof Error ? error : new Error(String(error))))
        return
      }
      // kept for the child's life: a later "error" (none is expected) must not go unhandled. Either
      // "error" or "spawn" comes first; Effect ignores a second resume
      child.on("error", (error) => resume(Effect.fail(error)))
      child.once("spawn", () => {
        if (child.pid === undefined) resume(Effect.fail(new Error("the process has no pid")))
        else resume(Effect.succeed({ child, group: watch(child, child.pid, options.maxBytes) }))
      })
    }),
    ({ child, group }) =>
      Effect.andThen(
        killGroup(group.pid),
        Effect.sync(() => {
          child.stdout.destroy()
          child.stderr.destroy()
        })
      )
  ).pipe(Effect.map(({ group }) => group))
