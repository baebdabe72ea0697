/**
 * `processGroup.ts` at its edges, with real processes (`processGroup.test.ts` has the main
 * cases): output that comes in several chunks is cut at the cap across them, a cap of 0 or
 * below keeps nothing, `output` cancels its wait's timer when the streams end while it waits,
 * `killGroup` of a group already gone sends nothing and waits for nothing, a member killed with
 * SIGKILL that stays a zombie (its parent left the group and does not reap it) counts as dead
 * at once, and a group that still runs after SIGKILL is waited for the settle time at most.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { killGroup } from "../../../../src/tools/ported/shell/processGroup.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { procState, spawnIn } from "./groupHarness.js"

let dir: string

beforeAll(() => {
  dir = makeTempDirSync("process-group-edges-")
})

afterAll(() => {
  Fs.rmSync(dir, { recursive: true, force: true })
})

const spawn = spawnIn(() => dir)

/** The state of a process (`/proc`), or undefined when it is gone. */
const stateOf = (pid: number): string | undefined => procState(pid)?.state

/** Timers of this process (`setTimeout`s not yet fired or cleared). */
const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length

/**
 * A perl leader that forks M; M forks X, which ignores SIGTERM and sleeps, then M leaves the
 * group (`setpgrp`), writes "M X" to the file and sleeps without ever reaping X; the leader
 * exits once the file is there. What is left in the group: X only, whose parent is out of it,
 * so X killed stays a zombie.
 */
const UNREAPED_TERM_IGNORER = `
my $m = fork();
if ($m == 0) {
  my $x = fork();
  if ($x == 0) { $SIG{TERM} = 'IGNORE'; sleep 60; exit 0 }
  setpgrp(0, 0);
  open(my $f, '>', "$ARGV[0].tmp"); print $f "$$ $x\\n"; close $f; rename("$ARGV[0].tmp", $ARGV[0]);
  sleep 60; exit 0;
}
for (my $i = 0; $i < 1000 && ! -e $ARGV[0]; $i++) { select(undef, undef, undef, 0.01) }
exit 0;
`

/**
 * Like `UNREAPED_TERM_IGNORER`, but once X is a zombie (SIGKILL came) M keeps the group alive
 * for 6 s: every 50 ms a child of M joins the group (`setpgid`, allowed in the same session
 * while the zombie keeps the group in being) and lives 1 s there (longer than a scan of `/proc`
 * takes on a loaded machine: a scan reads the processes listed when it began).
 */
const REJOINED_AFTER_SIGKILL = `
use Time::HiRes qw(time sleep);
my $g = getpgrp();
my $m = fork();
if ($m == 0) {
  my $x = fork();
  if ($x == 0) { $SIG{TERM} = 'IGNORE'; my $held = 'x' x (64 * 1024 * 1024); sleep 60; exit 0 }
  setpgrp(0, 0);
  open(my $f, '>', "$ARGV[0].tmp"); print $f "$$ $x\\n"; close $f; rename("$ARGV[0].tmp", $ARGV[0]);
  for (my $i = 0; $i < 4000; $i++) {
    open(my $s, '<', "/proc/$x/stat") or last; my $stat = <$s>; close $s;
    last if $stat =~ /\\) Z /;
    sleep 0.001;
  }
  my $end = time() + 6;
  while (time() < $end) {
    my $j = fork();
    if ($j == 0) { setpgrp(0, $g) or exit 1; sleep 1; exit 0 }
    sleep 0.05;
  }
  sleep 60; exit 0;
}
for (my $i = 0; $i < 1000 && ! -e $ARGV[0]; $i++) { sleep 0.01 }
exit 0;
`

/**
 * Runs a perl `script` whose group leader exits leaving M (out of the group) and X (a member
 * that ignores SIGTERM, unreaped once dead), kills the group, and says how long `killGroup`
 * took after X became a zombie; M is killed at the end.
 */
const killGroupPastZombie = (script: string, pidsFile: string) =>
  Effect.gen(function*() {
    const file = Path.join(dir, pidsFile)
    const group = yield* spawn("perl", ["-e", script, file])
    expect(yield* group.ended).toEqual({ code: 0, signal: null })
    const [m, x] = Fs.readFileSync(file, "utf8").trim().split(" ").map(Number)
    if (m === undefined || x === undefined) return yield* Effect.die(new Error("no pids"))
    yield* Effect.addFinalizer(() => Effect.sync(() => process.kill(m, "SIGKILL")))
    const killing = yield* Effect.forkChild(killGroup(group.pid))
    // X ignores SIGTERM: it runs through the grace period, then SIGKILL makes it a zombie
    for (let i = 0; i < 1000 && stateOf(x) !== "Z"; i++) yield* Effect.sleep("10 millis")
    expect(stateOf(x)).toBe("Z")
    const zombie = Date.now()
    yield* Fiber.join(killing)
    return { m, sinceZombie: Date.now() - zombie }
  })

// live clock: real processes and real timers
describe("processGroup at its edges", () => {
  it.live("output written in several chunks is cut at the cap across them, and counted in full", () =>
    Effect.gen(function*() {
      // eight writes of two bytes, 50 ms apart: read as several chunks
      const group = yield* spawn("sh", ["-c", "for i in 1 2 3 4 5 6 7 8; do printf ab; sleep 0.05; done"], 5)
      yield* group.ended
      const { stdout } = yield* group.output(5000)
      expect(stdout).toEqual({ text: "ababa", totalBytes: 16, cut: true })
    }).pipe(Effect.scoped), 20_000)

  it.live("a cap of 0 or below keeps nothing and counts every byte", () =>
    Effect.gen(function*() {
      for (const maxBytes of [0, -1]) {
        const group = yield* spawn("sh", ["-c", "printf abcdef"], maxBytes)
        yield* group.ended
        const { stdout } = yield* group.output(5000)
        expect(stdout, String(maxBytes)).toEqual({ text: "", totalBytes: 6, cut: true })
      }
    }).pipe(Effect.scoped), 20_000)

  it.live("output whose streams end while it waits cancels its wait's timer", () =>
    Effect.gen(function*() {
      // five groups whose streams end 500 ms after output begins to wait on each
      const groups = yield* Effect.forEach([1, 2, 3, 4, 5], () => spawn("sh", ["-c", "sleep 0.5; printf done"], 64))
      const before = timers()
      const outputs = yield* Effect.forEach(groups, (group) => group.output(600_000), { concurrency: "unbounded" })
      expect(outputs.map(({ stdout }) => stdout.text)).toEqual(["done", "done", "done", "done", "done"])
      // five timers of 600 s left running would keep the process alive that long (one may be another's)
      expect(timers(), `before: ${before}`).toBeLessThanOrEqual(before + 1)
    }).pipe(Effect.scoped), 20_000)

  it.live("killGroup of a group already gone sends nothing more and does not wait: it completes at once", () =>
    Effect.gen(function*() {
      const group = yield* spawn("true", [])
      yield* group.ended
      // not a single poll (each is a real timer): the effect runs to its end synchronously
      expect(Exit.isSuccess(Effect.runSyncExit(killGroup(group.pid)))).toBe(true)
    }).pipe(Effect.scoped))

  it.live.skipIf(process.platform !== "linux")(
    "a member killed with SIGKILL that stays a zombie (unreaped) counts as dead: no settle time waited",
    () =>
      Effect.gen(function*() {
        const { m, sinceZombie } = yield* killGroupPastZombie(UNREAPED_TERM_IGNORER, "unreaped-pids")
        // the settle loop would wait 1000 ms more (20 real sleeps) if it counted the zombie as running
        expect(sinceZombie).toBeLessThan(800)
        // M left the group: not signalled
        expect(stateOf(m)).not.toBe("Z")
      }).pipe(Effect.scoped),
    20_000
  )

  it.live.skipIf(process.platform !== "linux")(
    "a group that still runs after SIGKILL is waited for 1 s at most, not until it ends",
    () =>
      Effect.gen(function*() {
        const { sinceZombie } = yield* killGroupPastZombie(REJOINED_AFTER_SIGKILL, "rejoined-pids")
        // the group runs on for 6 s after X died; the settle loop polls it 20 times, 50 ms apart
        expect(sinceZombie).toBeLessThan(4000)
      }).pipe(Effect.scoped),
    20_000
  )
})
