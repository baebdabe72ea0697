/**
 * `run_command` with real processes: output, exit status and signal, the working directory,
 * caps, the process group killed on timeout, on the caller's interruption and after a normal
 * exit (background jobs), escalation to SIGKILL, and no secret-named variable passed on
 * (`envAllowList.test.ts` covers the allow-list).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Option, Result } from "effect"
import { TestClock } from "effect/testing"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Exports, PathTraversalError, ToolSystem, Workspace } from "../../../../src/index.js"
import { isSecretName } from "../../../../src/tools/shared/secretEnv.js"
import { shellTools } from "../../../../src/tools/ported/shell/index.js"
import {
  RUN_COMMAND_MAX_OUTPUT_BYTES,
  RUN_COMMAND_MAX_TIMEOUT_SEC,
  runCommand
} from "../../../../src/tools/ported/shell/runCommand.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { withEnv } from "../git/gitFixture.js"
import { pidIn, running } from "../../../helpers/processes.js"
import { countingSleeps, joinUnmoved, sleepersUntil, until, wakeAfter } from "../../../helpers/testClock.js"

let ws: string

beforeAll(() => {
  ws = makeTempDirSync("run-command-")
  Fs.mkdirSync(Path.join(ws, "sub"))
  Fs.writeFileSync(Path.join(ws, "file.txt"), "x")
})

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

const run = (args: Record<string, unknown>, confirm = true) =>
  Effect.gen(function*() {
    const system = yield* ToolSystem
    return yield* system.execute("run_command", args, confirm ? { confirm: true } : {})
  }).pipe(
    Effect.provide(ToolSystem.layerNode({ builtins: false, tools: shellTools, workspace: Workspace.layerFixed(ws) }))
  )

/** The output of a successful call. */
const outputOf = (args: Record<string, unknown>) =>
  Effect.map(run(args), (r) => {
    expect(r.error).toBeNull()
    return r.output as {
      exit_code: number | null
      signal: string | null
      timed_out: boolean
      stdout: string
      stderr: string
    }
  })

/** The processes of group `pgid` that still run (zombies waiting to be reaped are dead). */
const liveMembers = (pgid: number): ReadonlyArray<number> => {
  const live: Array<number> = []
  for (const entry of Fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = Fs.readFileSync(`/proc/${entry}/stat`, "latin1")
    } catch {
      continue
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    if (Number(fields[2]) === pgid && fields[0] !== "Z") live.push(Number(entry))
  }
  return live
}

let count = 0
/** A fresh file name in the workspace for a pid. */
const pidFile = () => Path.join(ws, `pid-${++count}`)

// live clock: real /bin/sh processes, their pipes and their kill (SIGTERM, the grace period on
// real timers), except the deadline tests: the command's deadline is an Effect.timeoutOption on
// the fiber's Clock, so they move the TestClock (under countingSleeps, which sees the sleep) once
// the command has done what it must first
describe("run_command", () => {
  it("is a confirmation tool of the shell category with a timeout above the longest deadline", () => {
    expect(runCommand.requiresConfirmation).toBe(true)
    expect(runCommand.spec.readOnly).toBe(false)
    expect(runCommand.scopedWrite).toBe(false)
    expect(runCommand.tags).toEqual(["shell", "ported"])
    expect(runCommand.pathFields).toEqual(["cwd"])
    expect(runCommand.timeoutMs).toBeGreaterThan(RUN_COMMAND_MAX_TIMEOUT_SEC * 1000)
    expect(shellTools.map((t) => t.name)).toEqual(["run_command"])
    for (const format of Exports.formats) expect(() => Exports.exportSpec(runCommand.spec, format)).not.toThrow()
  })

  it.live("returns stdout, stderr and the exit status; a signal ends it with exit_code null", () =>
    Effect.gen(function*() {
      expect(yield* outputOf({ command: "echo out; echo err >&2; exit 3" })).toEqual({
        exit_code: 3,
        signal: null,
        timed_out: false,
        stdout: "out\n",
        stderr: "err\n"
      })
      expect(yield* outputOf({ command: "echo 'héllo' | tr a-z A-Z" })).toMatchObject({ exit_code: 0, stdout: "HéLLO\n" })
      expect(yield* outputOf({ command: "kill -TERM $$" })).toMatchObject({ exit_code: null, signal: "SIGTERM" })
      // stdin is empty: a command that reads it does not wait
      expect(yield* outputOf({ command: "cat; echo done", timeout_sec: 5 })).toMatchObject({ stdout: "done\n" })
    }))

  it.live("runs in the workspace, or in the directory cwd names; a bad cwd is refused", () =>
    Effect.gen(function*() {
      expect((yield* outputOf({ command: "pwd" })).stdout).toBe(`${ws}\n`)
      expect((yield* outputOf({ command: "pwd", cwd: "sub" })).stdout).toBe(`${Path.join(ws, "sub")}\n`)
      const file = yield* run({ command: "pwd", cwd: "file.txt" })
      expect(file.errorCode).toBe("TOOL_ERROR")
      expect(file.error).toBe("cwd \"file.txt\" is not a directory")
      expect((yield* run({ command: "pwd", cwd: "missing" })).error).toBe("cwd \"missing\" does not exist")
      const out = yield* Effect.exit(run({ command: "pwd", cwd: "../" }))
      const traversal = Exit.isFailure(out) ? Result.getSuccess(Cause.findDefect(out.cause)) : Option.none()
      expect(Option.getOrUndefined(traversal)).toBeInstanceOf(PathTraversalError)
    }))

  it.live("a command line the system refuses to start (one argument over 128 KiB) fails with the reason", () =>
    Effect.gen(function*() {
      // Linux caps one argument of execve at 32 pages (MAX_ARG_STRLEN): spawn fails with E2BIG
      const result = yield* run({ command: `: ${"x".repeat(200_000)}` })
      expect(result.errorCode).toBe("TOOL_ERROR")
      expect(result.error).toBe("could not start /bin/sh: spawn E2BIG")
    }))

  it.live("arguments: confirmation needed, no NUL, a positive deadline (larger ones are capped)", () =>
    Effect.gen(function*() {
      expect((yield* run({ command: "true" }, false)).errorCode).toBe("CONFIRMATION_REQUIRED")
      const nul = yield* run({ command: "echo a\u0000b" })
      expect(nul.errorCode).toBe("INVALID_ARGUMENTS")
      expect(nul.error).toContain("the command must not contain a NUL character")
      expect((yield* run({ command: "" })).errorCode).toBe("INVALID_ARGUMENTS")
      expect((yield* run({ command: "true", timeout_sec: 0 })).errorCode).toBe("INVALID_ARGUMENTS")
      expect((yield* outputOf({ command: "true", timeout_sec: 1e9 })).exit_code).toBe(0)
    }))

  it.live("stdout and stderr are each cut at 64 KiB, counted past it, cut on a character boundary", () =>
    Effect.gen(function*() {
      const big = yield* outputOf({
        command: "head -c 3000000 /dev/zero | tr '\\0' a; head -c 100000 /dev/zero | tr '\\0' b >&2; exit 4"
      })
      expect(big.exit_code).toBe(4)
      expect(big.stdout.startsWith("a".repeat(RUN_COMMAND_MAX_OUTPUT_BYTES) + "\n[stdout cut at 65536 of 3000000 bytes:")).toBe(
        true
      )
      expect(big.stdout).toContain("redirect it to a file (> out.txt) and read that with read_file")
      expect(big.stderr.startsWith("b".repeat(RUN_COMMAND_MAX_OUTPUT_BYTES) + "\n[stderr cut at 65536 of 100000 bytes:")).toBe(
        true
      )
      // "é\n" is 3 bytes: the cut at 65536 falls inside a character, which is dropped whole
      const utf8 = yield* outputOf({ command: "yes é | head -c 70000" })
      expect(utf8.stdout).not.toContain("\uFFFD")
      expect(utf8.stdout).toContain(`${"é\n".repeat(21845)}\n[stdout cut at 65536 of 70000 bytes`)
    }))

  it.effect("a timeout kills the whole process group and returns what was printed", () =>
    Effect.gen(function*() {
      const pids = pidFile()
      const background = `${pids}-bg`
      const printed = `${pids}-printed`
      const call = yield* Effect.forkChild(outputOf({
        command: `echo $$ > ${pids}; sleep 1000 & echo $! > ${background}; echo before; : > ${printed}; sleep 1000`,
        timeout_sec: 1
      }))
      // the command has printed and sleeps; two more turns of the event loop (an I/O poll between
      // them) and what it printed has been read from the pipe
      let turns = 0
      yield* until(() => Fs.existsSync(printed) && ++turns > 2, "the command's output")
      // not timed out a millisecond before its deadline (1 s of the clock), timed out at it
      yield* sleepersUntil(1000)
      yield* TestClock.adjust(999)
      expect(call.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(1)
      // then the group gets SIGTERM, which ends it at once: well within the 1.5 s grace period
      const out = yield* joinUnmoved(call, 4000)
      expect(out).toMatchObject({ exit_code: null, signal: null, timed_out: true, stdout: "before\n" })
      const pgid = yield* pidIn(pids)
      expect(liveMembers(pgid)).toEqual([])
      expect(running(yield* pidIn(background))).toBe(false)
    }).pipe(countingSleeps))

  it.live("interrupting the call kills the whole process group before the interruption completes", () =>
    Effect.gen(function*() {
      const pids = pidFile()
      const fiber = yield* Effect.forkChild(run({ command: `echo $$ > ${pids}; sleep 1000 & sleep 1000`, timeout_sec: 600 }))
      const pgid = yield* pidIn(pids)
      // the background sleep has started too
      for (let i = 0; i < 100 && liveMembers(pgid).length < 3; i++) yield* Effect.sleep("20 millis")
      expect(liveMembers(pgid).length).toBe(3)
      const started = Date.now()
      yield* Fiber.interrupt(fiber)
      expect(Date.now() - started).toBeLessThan(4000)
      expect(liveMembers(pgid)).toEqual([])
    }))

  it.effect("a group that ignores SIGTERM gets SIGKILL after the grace period", () =>
    Effect.gen(function*() {
      const pids = pidFile()
      const call = yield* Effect.forkChild(outputOf({
        command: `trap '' TERM; echo $$ > ${pids}; sleep 1000 & sleep 1000`,
        timeout_sec: 0.5
      }))
      // the trap is set: the deadline's SIGTERM is ignored
      yield* pidIn(pids)
      yield* wakeAfter(500)
      const out = yield* joinUnmoved(call)
      expect(out.timed_out).toBe(true)
      expect(liveMembers(yield* pidIn(pids))).toEqual([])
    }).pipe(countingSleeps))

  it.effect("a group that handles SIGTERM is given its grace period to clean up before any SIGKILL", () =>
    Effect.gen(function*() {
      const pids = pidFile()
      const marker = `${pids}-cleaned`
      const call = yield* Effect.forkChild(outputOf({
        command: `trap 'sleep 0.3; echo cleaned > ${marker}; exit 0' TERM; echo $$ > ${pids}; while :; do sleep 0.05; done`,
        timeout_sec: 0.5
      }))
      // the trap is set: the deadline's SIGTERM runs it
      yield* pidIn(pids)
      yield* wakeAfter(500)
      const out = yield* joinUnmoved(call)
      expect(out.timed_out).toBe(true)
      expect(Fs.readFileSync(marker, "utf8")).toBe("cleaned\n")
      expect(liveMembers(yield* pidIn(pids))).toEqual([])
    }).pipe(countingSleeps))

  it.live("background jobs do not outlive a command that exits normally", () =>
    Effect.gen(function*() {
      const background = pidFile()
      const started = Date.now()
      const out = yield* outputOf({ command: `sleep 1000 & echo $! > ${background}; echo started` })
      expect(out).toMatchObject({ exit_code: 0, timed_out: false, stdout: "started\n" })
      expect(Date.now() - started).toBeLessThan(4000)
      expect(running(yield* pidIn(background))).toBe(false)
    }))

  it.live("variables named like secrets are not passed on, nor any name off the allow-list; LANG is", () =>
    Effect.gen(function*() {
      const secrets = {
        MY_API_KEY: "k1",
        GITHUB_TOKEN: "t1",
        APP_SECRET: "s1",
        DB_PASSWORD: "p1",
        SERVICE_CREDENTIALS: "c1",
        GOOGLE_APPLICATION_CREDENTIALS: "/c2",
        AWS_REGION: "eu-1",
        aws_access_key_id: "a1",
        Stripe_Secret_Key: "s2"
      }
      yield* withEnv({ ...secrets, LANG: "C.UTF-8", KEEP_ME: "off-list" })
      const env = (yield* outputOf({ command: "env" })).stdout.split("\n")
      expect(env).toContain("LANG=C.UTF-8")
      for (const name of [...Object.keys(secrets), "KEEP_ME"]) expect(env.some((line) => line.startsWith(`${name}=`)), name).toBe(false)
    }).pipe(Effect.scoped))

  it("isSecretName judges a name by its words and endings", () => {
    const secret = [
      "OPENAI_API_KEY",
      "api_key",
      "NPM_TOKEN",
      "GHTOKEN",
      "X_SECRET",
      "PGPASSWORD",
      "DB_PASSWORD_FILE",
      "AWS_PROFILE",
      "AZURE_CLIENT_SECRET",
      "MY_CREDENTIALS",
      "SSH_PASSPHRASE",
      "SECRET"
    ]
    for (const name of secret) expect(isSecretName(name), name).toBe(true)
    const plain = ["PATH", "HOME", "KEYBOARD", "TOKENIZERS_PARALLELISM", "MONKEY", "LANG", "SECRETARY", "PASSWORDLESS"]
    for (const name of plain) expect(isSecretName(name), name).toBe(false)
  })
})
