/**
 * `processGroup.ts` on its own, with real processes: a group whose only members left are
 * zombies counts as ended (on Linux `kill(-pgid, 0)` still finds them, `/proc` shows them dead),
 * `killGroup` returns as soon as the group is gone (also once reaped, and after SIGKILL) rather
 * than after the grace period or the settle time, each output stream is cut at its cap but
 * counted in full, `output` leaves no timer behind, and closing the scope closes the pipes even
 * when a process that left the group still writes to them.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { KILL_GRACE_MS, killGroup } from "../../../../src/tools/ported/shell/processGroup.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { procState, spawnIn } from "./groupHarness.js"

let dir: string

beforeAll(() => {
  dir = makeTempDirSync("process-group-")
})

afterAll(() => {
  Fs.rmSync(dir, { recursive: true, force: true })
})

const spawn = spawnIn(() => dir)

/**
 * A perl leader that forks M; M forks C, which exits at once and is never reaped (a zombie of
 * the group), then M leaves the group (`setpgrp`) and sleeps; the leader exits once M wrote
 * "M C" to the file. What is left in the group: the zombie C only. M writes the file once
 * `/proc` shows C a zombie (up to 5 s): on a loaded machine C may not have run its exit yet
 * when M gets there, and the test then found it running.
 */
const ZOMBIE_LEFT_BEHIND = `
my $m = fork();
if ($m == 0) {
  my $c = fork();
  if ($c == 0) { exit 0 }
  for (my $i = 0; $i < 500; $i++) {
    open(my $s, '<', "/proc/$c/stat") or last; my $stat = <$s>; close $s;
    last if $stat =~ /\\) Z /;
    select(undef, undef, undef, 0.01);
  }
  setpgrp(0, 0);
  open(my $f, '>', "$ARGV[0].tmp"); print $f "$$ $c\\n"; close $f; rename("$ARGV[0].tmp", $ARGV[0]);
  sleep 60; exit 0;
}
for (my $i = 0; $i < 1000 && ! -e $ARGV[0]; $i++) { select(undef, undef, undef, 0.01) }
exit 0;
`


/** A group whose one member, its leader, ignores SIGTERM (a shell that became sleep: the trap stays). */
const termIgnoringSleep = Effect.gen(function*() {
  const group = yield* spawn("sh", ["-c", "trap '' TERM; exec sleep 1000"])
  for (let i = 0; i < 200; i++) {
    if (Fs.readFileSync(`/proc/${group.pid}/comm`, "utf8").trim() === "sleep") break
    yield* Effect.sleep("10 millis")
  }
  return group
})
// live clock: real processes; killGroup's grace period and polls, and output's wait, are real timers (realSleep),
// which the time bounds below measure (each with room: a grace period is 1.5 s, the settle time 1 s)
describe("processGroup", () => {
  it.live.skipIf(process.platform !== "linux")(
    "a group whose only member left is a zombie counts as ended: killGroup does not wait out the grace period",
    () =>
      Effect.gen(function*() {
        const file = Path.join(dir, "zombie-pids")
        const group = yield* spawn("perl", ["-e", ZOMBIE_LEFT_BEHIND, file])
        const ended = yield* group.ended
        expect(ended).toEqual({ code: 0, signal: null })
        const [m, c] = Fs.readFileSync(file, "utf8").trim().split(" ").map(Number)
        if (m === undefined || c === undefined) return yield* Effect.die(new Error("no pids"))
        try {
          // the scene: C is a zombie still in the group, and the signal check alone still finds the group
          expect(procState(c)).toEqual({ state: "Z", pgrp: group.pid })
          expect(procState(m)?.pgrp).toBe(m)
          expect(() => process.kill(-group.pid, 0)).not.toThrow()
          const started = Date.now()
          yield* killGroup(group.pid)
          expect(Date.now() - started).toBeLessThan(KILL_GRACE_MS)
          // M is in a group of its own: not signalled
          expect(procState(m)?.state).not.toBe("Z")
        } finally {
          process.kill(m, "SIGKILL")
        }
      }).pipe(Effect.scoped),
    20_000
  )

  it.live("killGroup returns once a group that ends on SIGTERM is gone, well before the grace period", () =>
    Effect.gen(function*() {
      const group = yield* spawn("sh", ["-c", "sleep 1000 & sleep 1000 & wait"])
      // both sleeps started (the group has three members) before it is killed
      for (let i = 0; i < 200; i++) {
        const members = Fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e) && procState(Number(e))?.pgrp === group.pid)
        if (members.length === 3) break
        yield* Effect.sleep("10 millis")
      }
      const started = Date.now()
      yield* killGroup(group.pid)
      expect(Date.now() - started).toBeLessThan(KILL_GRACE_MS)
      expect(yield* group.ended).toEqual({ code: null, signal: "SIGTERM" })
      // what may still be found are zombies waiting to be reaped
      const live = Fs.readdirSync("/proc").filter((e) => {
        const state = /^\d+$/.test(e) ? procState(Number(e)) : undefined
        return state !== undefined && state.pgrp === group.pid && state.state !== "Z"
      })
      expect(live).toEqual([])
    }).pipe(Effect.scoped), 20_000)

  it.live.skipIf(process.platform !== "linux")(
    "a leader that ignores SIGTERM is killed with SIGKILL after the grace period; killGroup returns once it is gone",
    () =>
      Effect.gen(function*() {
        // the shell ignores TERM and becomes sleep, which keeps it ignored: the group's one member is
        // the leader itself, whose parent is this process (not a member of the group)
        const group = yield* termIgnoringSleep
        const started = Date.now()
        yield* killGroup(group.pid)
        expect(Date.now() - started).toBeGreaterThanOrEqual(KILL_GRACE_MS)
        // dead when killGroup returns (a zombie until this process reaps it, or gone)
        expect(procState(group.pid)?.state ?? "Z").toBe("Z")
        expect(yield* group.ended).toEqual({ code: null, signal: "SIGKILL" })
      }).pipe(Effect.scoped),
    20_000
  )

  it.live("killGroup of a group that is already gone returns at once", () =>
    Effect.gen(function*() {
      const group = yield* spawn("true", [])
      yield* group.ended
      // the leader is reaped once "exit" was emitted: nothing of the group is left
      const started = Date.now()
      yield* killGroup(group.pid)
      expect(Date.now() - started).toBeLessThan(KILL_GRACE_MS)
    }).pipe(Effect.scoped))

  it.live("each stream keeps its first maxBytes bytes and counts the rest; a stream under the cap is whole", () =>
    Effect.gen(function*() {
      const group = yield* spawn("sh", ["-c", "printf 'abcdefghij'; printf 'xyz' >&2"], 4)
      yield* group.ended
      const { stderr, stdout } = yield* group.output(5000)
      expect(stdout).toEqual({ text: "abcd", totalBytes: 10, cut: true })
      expect(stderr).toEqual({ text: "xyz", totalBytes: 3, cut: false })
    }).pipe(Effect.scoped))

  it.live("a stream of exactly maxBytes bytes is whole, not cut", () =>
    Effect.gen(function*() {
      const group = yield* spawn("sh", ["-c", "printf 'abcd'"], 4)
      yield* group.ended
      const { stdout } = yield* group.output(5000)
      expect(stdout).toEqual({ text: "abcd", totalBytes: 4, cut: false })
    }).pipe(Effect.scoped))

  it.live("output waits for both streams to end, up to waitMs, and returns what was kept by then", () =>
    Effect.gen(function*() {
      // the background sleep holds stdout open after the leader exited
      const group = yield* spawn("sh", ["-c", "printf 'early'; sleep 1000 &"], 64)
      yield* group.ended
      const started = Date.now()
      const { stdout } = yield* group.output(300)
      const waited = Date.now() - started
      expect(stdout.text).toBe("early")
      expect(waited).toBeGreaterThanOrEqual(250)
      yield* killGroup(group.pid)
    }).pipe(Effect.scoped), 20_000)

  it.live("output returns as soon as both streams ended, without waiting for waitMs", () =>
    Effect.gen(function*() {
      const group = yield* spawn("sh", ["-c", "printf 'done'"], 64)
      yield* group.ended
      const started = Date.now()
      const { stdout } = yield* group.output(10_000)
      expect(stdout.text).toBe("done")
      expect(Date.now() - started).toBeLessThan(5_000)
    }).pipe(Effect.scoped), 20_000)

  it.live("a program that does not exist fails to spawn with the spawn error; nothing is left to kill", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(spawn(Path.join(dir, "no-such-program"), []))
      expect(error.message).toContain("ENOENT")
    }).pipe(Effect.scoped))

  it.live("an argument Node refuses (a NUL byte) fails before anything starts", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(spawn("sh", ["-c", "echo a\u0000b"]))
      expect(error).toBeInstanceOf(Error)
      expect(error.message.length).toBeGreaterThan(0)
    }).pipe(Effect.scoped))
  it.live("a group that was reaped (nothing of it left, not even a zombie) counts as ended: no grace period", () =>
    Effect.gen(function*() {
      // one member, this process's own child: reaped by Node as soon as it dies on SIGTERM
      const group = yield* spawn("sleep", ["1000"])
      for (let i = 0; i < 200 && procState(group.pid) === undefined; i++) yield* Effect.sleep("10 millis")
      const started = Date.now()
      yield* killGroup(group.pid)
      expect(Date.now() - started).toBeLessThan(KILL_GRACE_MS)
      expect(yield* group.ended).toEqual({ code: null, signal: "SIGTERM" })
    }).pipe(Effect.scoped), 20_000)

  it.live.skipIf(process.platform !== "linux")(
    "after SIGKILL killGroup returns once the group is dead, without waiting out the settle time",
    () =>
      Effect.gen(function*() {
        const group = yield* termIgnoringSleep
        const killing = yield* Effect.forkChild(killGroup(group.pid))
        // "ended" comes once Node reaped the leader, a moment after SIGKILL
        expect(yield* group.ended).toEqual({ code: null, signal: "SIGKILL" })
        const reaped = Date.now()
        yield* Fiber.join(killing)
        // the settle loop would wait 1000 ms more if it did not look at the group
        expect(Date.now() - reaped).toBeLessThan(600)
      }).pipe(Effect.scoped),
    20_000
  )

  it.live("output that returns because both streams ended leaves no timer behind", () =>
    Effect.gen(function*() {
      const group = yield* spawn("sh", ["-c", "printf 'done'"], 64)
      yield* group.ended
      const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length
      const before = timers()
      const { stdout } = yield* group.output(600_000)
      expect(stdout.text).toBe("done")
      // a timer of 600 s left running would keep the process alive that long
      expect(timers()).toBe(before)
    }).pipe(Effect.scoped), 20_000)

  it.live.skipIf(process.platform !== "linux")(
    "closing the scope closes the output pipes even when a process that left the group still writes to them",
    () =>
      Effect.gen(function*() {
        const file = Path.join(dir, "escaped-pid")
        const escaped = yield* Effect.scoped(Effect.gen(function*() {
          // setsid puts the loop in a session (and group) of its own, writing to the group's stdout;
          // killGroup does not reach it
          const loop = `echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; while :; do echo x || exit 1; sleep 0.05; done`
          const group = yield* spawn("sh", ["-c", `setsid sh -c '${loop}' _ ${file} &`])
          yield* group.ended
          for (let i = 0; i < 500 && !Fs.existsSync(file); i++) yield* Effect.sleep("10 millis")
          return Number(Fs.readFileSync(file, "utf8").trim())
        }))
        try {
          // its next write finds the read end closed: SIGPIPE ends it (a zombie until init reaps it)
          for (let i = 0; i < 500 && procState(escaped) !== undefined && procState(escaped)?.state !== "Z"; i++) {
            yield* Effect.sleep("10 millis")
          }
          expect(procState(escaped)?.state ?? "Z").toBe("Z")
        } finally {
          try {
            process.kill(escaped, "SIGKILL")
          } catch {
            // gone
          }
        }
      }),
    20_000
  )
})
