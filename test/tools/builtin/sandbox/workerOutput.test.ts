/**
 * What a Worker prints, as both pools start them: through its output port to the owner's logger
 * at debug level, a line at a time (long lines cut), annotated with the pool's name and the
 * stream; nothing in the Worker's own stdio (so nothing can reach the host's stdout).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, HashMap, Logger, LogLevel } from "effect"
import * as fs from "node:fs"
import { Worker } from "node:worker_threads"
import ts from "typescript"
import { outputPort, WORKER_LINE_MAX_CHARS, workerIsolation } from "../../../../src/tools/builtin/sandbox/workerOutput.js"

/** `workerPrint.ts` as a `data:` module a plain Worker can import. */
const workerPrintUrl = (): string => {
  const source = fs.readFileSync(new URL("../../../../src/tools/builtin/sandbox/workerPrint.ts", import.meta.url), "utf8")
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 }
  }).outputText
  return `data:text/javascript;base64,${Buffer.from(js).toString("base64")}`
}

const workerSource = (printUrl: string) => `
import { parentPort, workerData } from "node:worker_threads"
import { printThrough } from ${JSON.stringify(printUrl)}
printThrough(workerData.output)
console.log("one")
console.error("two\\nthree")
process.stdout.write("par")
process.stdout.write("tial\\n")
console.log("x".repeat(${WORKER_LINE_MAX_CHARS + 500}))
parentPort.postMessage("printed")
`

interface Logged {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

describe("worker output", () => {
  it.live("goes to the owner's logger at debug level, a line at a time, and never into the Worker's stdio", () =>
    Effect.gen(function*() {
      const logged: Array<Logged> = []
      const recorder = Logger.make(({ annotations, logLevel, message }) => {
        logged.push({
          level: logLevel.label,
          message: (Array.isArray(message) ? message : [message]).map(String).join(" "),
          annotations: Object.fromEntries(HashMap.toEntries(annotations))
        })
      })
      const runtime = yield* Effect.runtime<never>().pipe(
        Logger.withMinimumLogLevel(LogLevel.Debug),
        Effect.provide(Logger.replace(Logger.defaultLogger, recorder))
      )
      const output = outputPort("test-pool", runtime)
      const url = new URL(`data:text/javascript;base64,${Buffer.from(workerSource(workerPrintUrl())).toString("base64")}`)
      const worker = new Worker(url, { ...workerIsolation(), workerData: { output }, transferList: [output] })
      let stdio = ""
      worker.stdout.on("data", (chunk: Buffer) => (stdio += chunk.toString()))
      worker.stderr.on("data", (chunk: Buffer) => (stdio += chunk.toString()))
      yield* Effect.async<void>((resume) => {
        worker.once("message", () => resume(Effect.void))
      })
      // the output port is not the Worker's message port: its messages may come a little later
      const deadline = Date.now() + 5000
      while (logged.length < 5 && Date.now() < deadline) yield* Effect.sleep("20 millis")
      yield* Effect.promise(() => worker.terminate())

      const long = logged.at(-1)
      expect(logged.slice(0, 4)).toEqual([
        { level: "DEBUG", message: "one", annotations: { worker: "test-pool", stream: "stdout" } },
        { level: "DEBUG", message: "two", annotations: { worker: "test-pool", stream: "stderr" } },
        { level: "DEBUG", message: "three", annotations: { worker: "test-pool", stream: "stderr" } },
        { level: "DEBUG", message: "partial", annotations: { worker: "test-pool", stream: "stdout" } }
      ])
      expect(logged).toHaveLength(5)
      expect(long?.message).toBe(`${"x".repeat(WORKER_LINE_MAX_CHARS)}... (500 more characters)`)
      expect(stdio).toBe("")
    }))
})
