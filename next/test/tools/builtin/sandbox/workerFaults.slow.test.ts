/**
 * Sandbox Workers that misbehave in ways no guest can cause, made so by a preload that Node runs
 * in every Worker (`NODE_OPTIONS=--require`) in a child process (faultyWorkers.ts): a Worker
 * that prints, one that exits while idle, one whose start throws, one that exits while
 * starting. The pool forgets a Worker that is gone, says why a start failed, and logs what
 * its Workers print with the pool's name.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { runScript } from "../../../helpers/runScript.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

const dir = makeTempDirSync("sandbox-faults-")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** The preload: acts only in a sandbox Worker (one given an output port), as the marker file says. */
const preload = (marker: string) => `
const { parentPort, workerData } = require("node:worker_threads")
const fs = require("node:fs")
if (workerData !== null && typeof workerData === "object" && workerData.output !== undefined) {
  const mode = fs.existsSync(${JSON.stringify(marker)}) ? fs.readFileSync(${JSON.stringify(marker)}, "utf8") : ""
  if (mode === "throw") throw new Error("the preload refused to start")
  if (mode === "exit") process.exit(7)
  parentPort.on("message", (message) => {
    console.log("preload: a request")
    if (message.code === "'bye'") setTimeout(() => process.exit(0), 100)
  })
}
`

interface Logged {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

/** What faultyWorkers.ts prints (see there for each step). */
interface Report {
  readonly unpatched: unknown
  readonly printedUnpatched: boolean
  readonly hello: unknown
  readonly printed: boolean
  readonly bye: unknown
  readonly leftWhenItExited: boolean
  readonly afterBye: unknown
  readonly again: unknown
  readonly hog: unknown
  readonly replacementFailed: boolean
  readonly refused: unknown
  readonly exited: unknown
  readonly stats: unknown
  readonly logged: ReadonlyArray<Logged>
}

describe("sandbox Workers that misbehave", () => {
  it("are forgotten when they exit, named when they cannot start, and what they print is logged as the sandbox's", async () => {
    const marker = path.join(dir, "marker")
    const preloadFile = path.join(dir, "preload.cjs")
    fs.writeFileSync(preloadFile, preload(marker))
    const ran = await runScript(new URL("./faultyWorkers.ts", import.meta.url), {
      args: [marker],
      env: { NODE_OPTIONS: `--require ${preloadFile}` }
    })
    expect(ran.code, ran.stderr).toBe(0)
    const report = JSON.parse(ran.stdout) as Report
    const ok = (result: string) => ({ kind: "ok", stdout: "", result })

    // as it is, a sandbox Worker starts with an empty environment: the host's preload never runs there
    expect(report.unpatched).toEqual(ok(`"hello"`))
    expect(report.printedUnpatched).toBe(false)

    // what a Worker prints is logged at debug level, as the sandbox's
    expect(report.hello).toEqual(ok(`"hello"`))
    expect(report.printed).toBe(true)
    const prints = report.logged.filter((line) => line.message === "preload: a request")
    expect(prints).toEqual(Array.from({ length: 4 }, () => ({
      level: "DEBUG",
      message: "preload: a request",
      annotations: { worker: "sandbox", stream: "stdout" }
    })))

    // a Worker that exits while idle is forgotten, and the next call gets a new one
    expect(report.bye).toEqual(ok(`"bye"`))
    expect(report.leftWhenItExited).toBe(true)
    expect(report.afterBye).toEqual({ live: 0, idle: 0, spawned: 1 })
    expect(report.again).toEqual(ok("2"))

    // a replacement that cannot start is a warning that says why; a call's Worker that cannot start is a crash that says why
    expect(report.hog).toEqual({ kind: "memory", stdout: "" })
    expect(report.replacementFailed).toBe(true)
    expect(report.refused).toEqual({ kind: "crash", message: "the sandbox worker failed to start: the preload refused to start" })
    expect(report.exited).toEqual({ kind: "crash", message: "the sandbox worker exited while starting (code 7)" })
    expect(report.stats).toEqual({ live: 0, idle: 0, spawned: 5 })
    // (the two failed starts' own warnings, and the replacement's; in no fixed order)
    const warnings = report.logged.filter((line) => line.message !== "preload: a request")
    expect(warnings.map((line) => line.level)).toEqual(["WARN", "WARN", "WARN"])
    expect(warnings.map((line) => line.message).sort()).toEqual([
      "sandbox: a replacement worker did not start: the sandbox worker failed to start: the preload refused to start",
      "sandbox: a worker failed: the preload refused to start",
      "sandbox: a worker failed: the preload refused to start"
    ])
  }, 60_000)
})
