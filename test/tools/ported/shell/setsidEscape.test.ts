/**
 * A child that calls `setsid` leaves `run_command`'s process group; it is found by the run's
 * mark in its environment and killed when the call ends: after a normal exit and on timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { shellTools } from "../../../../src/tools/ported/shell/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { pidIn, running } from "../../../helpers/processes.js"
import { countingSleeps, joinUnmoved, until, wakeAfter } from "../../../helpers/testClock.js"

let ws: string
beforeAll(() => {
  ws = makeTempDirSync("setsid-")
})
afterAll(() => Fs.rmSync(ws, { recursive: true, force: true }))

const run = (args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const system = yield* ToolSystem
    return yield* system.execute("run_command", args, { confirm: true })
  }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, tools: shellTools, workspace: Workspace.layerFixed(ws) })))

/** Whether `pid` ends within 1 s of real time, on any clock (the sweep runs as the call ends). */
const endsSoon = (pid: number) =>
  until(() => !running(pid), `the end of process ${pid}`, 1000).pipe(
    Effect.as(true),
    Effect.catchDefect(() => Effect.succeed(false))
  )

/** A command starting a `setsid` child that writes its pid to `file`, then sleeps. */
const escaping = (file: string) => `setsid sh -c 'echo $$ > ${file}; exec sleep 30' > /dev/null 2>&1 &`

describe.skipIf(process.platform !== "linux")("run_command and setsid", () => {
  // live clock: real processes; the command's own `sleep 0.3` lets the setsid child start
  it.live("a setsid child is dead once a call that exited normally returns", () =>
    Effect.gen(function*() {
      const file = Path.join(ws, "normal.pid")
      const result = yield* run({ command: `${escaping(file)} sleep 0.3; echo done` })
      expect(result.output).toMatchObject({ exit_code: 0, stdout: "done\n" })
      const pid = yield* pidIn(file)
      const dead = yield* endsSoon(pid)
      if (!dead) process.kill(pid, "SIGKILL")
      expect(dead).toBe(true)
    }))

  // the deadline is on the TestClock (run_command's Effect.timeoutOption, seen under countingSleeps), moved once the child runs
  it.effect("a setsid child is dead once a timed-out call returns", () =>
    Effect.gen(function*() {
      const file = Path.join(ws, "timeout.pid")
      const call = yield* Effect.forkChild(run({ command: `${escaping(file)} sleep 20`, timeout_sec: 0.5 }))
      const pid = yield* pidIn(file)
      yield* wakeAfter(500)
      const result = yield* joinUnmoved(call)
      expect(result.output).toMatchObject({ timed_out: true })
      const dead = yield* endsSoon(pid)
      if (!dead) process.kill(pid, "SIGKILL")
      expect(dead).toBe(true)
    }).pipe(countingSleeps))
})
