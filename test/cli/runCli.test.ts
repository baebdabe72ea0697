/**
 * `runCli` (what the executable's `main.ts` runs its program with), in this process: which
 * exit code it asks for, and where the logs and a failure's report go. logging.slow.test.ts runs it
 * as a child process, which a mutation test cannot see into. Here `process.exit` is replaced by
 * a recorder (the real one would end the test run) and the global console is watched: the
 * program runs under Effect's default Console, which writes through it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "@effect/vitest"
import { Effect } from "effect"
import { runCli } from "../../src/cli/run.js"

let exits: Array<unknown> = []
const realExit = Object.getOwnPropertyDescriptor(process, "exit")
let errorLines: Array<string> = []
let logLines: Array<string> = []

beforeEach(() => {
  exits = []
  errorLines = []
  logLines = []
  // a plain function where Node's `exit` was (a value of any type goes through defineProperty)
  Object.defineProperty(process, "exit", {
    configurable: true,
    writable: true,
    value: (code?: unknown) => {
      exits.push(code)
    }
  })
  vi.spyOn(console, "error").mockImplementation((...args: Array<unknown>) => {
    errorLines.push(args.map(String).join(" "))
  })
  vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
    logLines.push(args.map(String).join(" "))
  })
})

afterEach(() => {
  if (realExit !== undefined) Object.defineProperty(process, "exit", realExit)
  vi.restoreAllMocks()
  process.exitCode = undefined
})

/**
 * Runs the program under `runCli` and waits until its teardown has run (it removes its SIGINT
 * handler first). On Effect 4 the main fiber starts (and installs the handler) after `runCli`
 * returns, not within its call: the handler's installation is waited for, then its removal.
 */
const runToEnd = async (program: Effect.Effect<void, unknown>) => {
  const before = process.listenerCount("SIGINT")
  const on = vi.spyOn(process, "on")
  const installed = () => on.mock.calls.some(([event]) => event === "SIGINT")
  runCli(program)
  for (let i = 0; i < 10_000 && !installed(); i++) {
    await new Promise((resolve) => setImmediate(resolve))
  }
  expect(installed()).toBe(true)
  for (let i = 0; i < 10_000 && process.listenerCount("SIGINT") > before; i++) {
    await new Promise((resolve) => setImmediate(resolve))
  }
  expect(process.listenerCount("SIGINT")).toBe(before)
  // the teardown runs in the same turn as the handler's removal; one more turn for good measure
  await new Promise((resolve) => setImmediate(resolve))
}

describe("runCli", () => {
  it("a failure is reported once, on stderr, and the process exits 1", async () => {
    await runToEnd(Effect.fail(new Error("boom from the program")))
    expect(exits).toEqual([1])
    expect(errorLines.filter((l) => l.includes("boom from the program"))).toHaveLength(1)
    expect(logLines).toEqual([])
  })

  it("a program interrupted: no report, exit 1", async () => {
    await runToEnd(Effect.interrupt)
    expect(exits).toEqual([1])
    expect(errorLines).toEqual([])
    expect(logLines).toEqual([])
  })

  it("a success exits with the code the command set, its logs on stderr only", async () => {
    await runToEnd(Effect.logWarning("a pool warning").pipe(Effect.andThen(Effect.sync(() => {
      process.exitCode = 2
    }))))
    expect(exits).toEqual([2])
    expect(errorLines.join("\n")).toContain("a pool warning")
    expect(logLines).toEqual([])
  })

  it("a success without an exit code ends on its own (code 0: no exit call)", async () => {
    await runToEnd(Effect.logInfo("done"))
    expect(exits).toEqual([])
    expect(errorLines.join("\n")).toContain("done")
    expect(logLines).toEqual([])
  })
})
