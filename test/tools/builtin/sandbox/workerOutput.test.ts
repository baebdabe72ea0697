/**
 * What a Worker prints, as both pools start them: through its output port to the owner's logger
 * at debug level, a line at a time (long lines cut), annotated with the pool's name and the
 * stream; nothing in the Worker's own stdio (so nothing can reach the host's stdout).
 * On Effect 4: the owner's context (`Effect.context`) stands for Effect 3's runtime, with
 * `Logger.layer` and `References.MinimumLogLevel`; the annotations are read from the fiber's
 * `CurrentLogAnnotations`, and the recorded level is the level's name in capitals (Effect 3's label).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger, References } from "effect"
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
// before the Worker prints through its port: its own stdout, captured by the host
process.stdout.write("raw\\n")
process.stderr.write("raw err\\n")
printThrough(workerData.output)
console.log("one")
console.error("two\\nthree")
process.stdout.write("par")
process.stdout.write("tial\\n")
console.log("x".repeat(${WORKER_LINE_MAX_CHARS + 500}))
console.log("c".repeat(${WORKER_LINE_MAX_CHARS}))
process.stdout.write("a\\rb\\r\\n")
process.stderr.write("u".repeat(${WORKER_LINE_MAX_CHARS}))
process.stderr.write("\\n")
process.stdout.write("y".repeat(${WORKER_LINE_MAX_CHARS + 10}))
process.stdout.write("tail\\n")
parentPort.postMessage({ execArgv: process.execArgv })
`

interface Logged {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

describe("worker output", () => {
  // live clock: a real Worker, whose output port is read on its own time: polled up to 5 s for the
  // ten lines, then a real 100 ms in which a line let out twice would show
  it.live("goes to the owner's logger at debug level, a line at a time, and never into the Worker's stdio", () =>
    Effect.gen(function*() {
      const logged: Array<Logged> = []
      const recorder = Logger.make(({ fiber, logLevel, message }) => {
        logged.push({
          level: logLevel.toUpperCase(),
          message: (Array.isArray(message) ? message : [message]).map(String).join(" "),
          annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
        })
      })
      const context = yield* Effect.context<never>().pipe(
        Effect.provideService(References.MinimumLogLevel, "Debug"),
        Effect.provide(Logger.layer([recorder]))
      )
      const output = outputPort("test-pool", context)
      const url = new URL(`data:text/javascript;base64,${Buffer.from(workerSource(workerPrintUrl())).toString("base64")}`)
      const worker = new Worker(url, { ...workerIsolation(), workerData: { output }, transferList: [output] })
      let stdio = ""
      worker.stdout.on("data", (chunk: Buffer) => (stdio += chunk.toString()))
      worker.stderr.on("data", (chunk: Buffer) => (stdio += chunk.toString()))
      // what reaches this thread's own stdout and stderr meanwhile (a Worker's stdio not captured is piped there)
      let hostStdio = ""
      const writes = { stdout: process.stdout.write, stderr: process.stderr.write }
      const record = (chunk: string | Uint8Array): boolean => {
        hostStdio += chunk.toString()
        return true
      }
      process.stdout.write = record
      process.stderr.write = record
      const answer = yield* Effect.callback<unknown>((resume) => {
        worker.once("message", (message: unknown) => resume(Effect.succeed(message)))
      }).pipe(Effect.ensuring(Effect.sync(() => {
        process.stdout.write = writes.stdout
        process.stderr.write = writes.stderr
      })))
      // the output port is not the Worker's message port: its messages may come a little later
      const deadline = Date.now() + 5000
      while (logged.length < 10 && Date.now() < deadline) yield* Effect.sleep("20 millis")
      // nothing more is coming: a line let out twice would show now
      yield* Effect.sleep("100 millis")
      yield* Effect.promise(() => worker.terminate())

      const long = logged[4]
      expect(logged.slice(0, 4)).toEqual([
        { level: "DEBUG", message: "one", annotations: { worker: "test-pool", stream: "stdout" } },
        { level: "DEBUG", message: "two", annotations: { worker: "test-pool", stream: "stderr" } },
        { level: "DEBUG", message: "three", annotations: { worker: "test-pool", stream: "stderr" } },
        { level: "DEBUG", message: "partial", annotations: { worker: "test-pool", stream: "stdout" } }
      ])
      expect(long?.message).toBe(`${"x".repeat(WORKER_LINE_MAX_CHARS)}... (500 more characters)`)
      expect(logged.slice(5).map(({ annotations, message }) => [annotations.stream, message])).toEqual([
        // a line of exactly the cap is whole
        ["stdout", "c".repeat(WORKER_LINE_MAX_CHARS)],
        // the line's own CR goes, one inside it stays
        ["stdout", "a\rb"],
        // an unterminated line of exactly the cap waits for its end
        ["stderr", "u".repeat(WORKER_LINE_MAX_CHARS)],
        // one longer than the cap is let out without its end (cut), not held
        ["stdout", `${"y".repeat(WORKER_LINE_MAX_CHARS)}... (10 more characters)`],
        // and what follows it is a line of its own
        ["stdout", "tail"]
      ])
      // the Worker's own stdio held only what it wrote before printing through its port, and it
      // never reached this thread's stdout; the Worker ran without Node flags
      expect(stdio).toContain("raw\n")
      expect(stdio).toContain("raw err\n")
      expect(stdio).toHaveLength("raw\nraw err\n".length)
      expect(hostStdio).toBe("")
      expect(answer).toEqual({ execArgv: [] })
    }))
})
