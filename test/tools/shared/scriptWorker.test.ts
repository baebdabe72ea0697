/**
 * `runScriptWorker`: a script in a worker thread answers with its first message; each way a
 * worker can end without one is a typed failure that says what happened, the deadline stops a
 * script that never ends, and the worker's output never reaches the host's.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Duration, Effect, Either } from "effect"
import { runScriptWorker } from "../../../src/tools/shared/scriptWorker.js"
import { reasonAndMessage } from "../../helpers/reasonAndMessage.js"

/** A script that does what `workerData.act` says. */
const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads")
const act = workerData.act
if (act === "answer") parentPort.postMessage({ got: workerData.value })
if (act === "throw") throw new Error("script broke")
if (act === "exit") process.exit(3)
if (act === "memory") {
  const hoard = []
  for (;;) hoard.push(new Array(1_000_000).fill(hoard.length))
}
if (act === "spin") for (;;) {}
if (act === "print") {
  process.stdout.write("worker stdout noise\\n")
  process.stderr.write("worker stderr noise\\n")
  parentPort.postMessage("printed")
}
if (act === "argv") parentPort.postMessage(process.execArgv)
`

const start = (act: string, value?: unknown, deadline: Duration.DurationInput = "20 seconds") =>
  runScriptWorker(SCRIPT, { act, value }, { deadline, heapMb: 16, what: "the job" })

const run = (act: string, value?: unknown) => Effect.either(start(act, value))

const failure = (act: string, deadline?: Duration.DurationInput) => reasonAndMessage(start(act, undefined, deadline))

describe("runScriptWorker", () => {
  it.live("answers with the script's first message, given its workerData", () =>
    Effect.gen(function*() {
      expect(yield* run("answer", [1, "two"])).toEqual(Either.right({ got: [1, "two"] }))
    }))

  it.live("a script that throws, exits or runs out of its heap: a failure that says which", () =>
    Effect.gen(function*() {
      expect(yield* failure("throw")).toEqual(["error", "the job failed: script broke"])
      expect(yield* failure("exit")).toEqual(["error", "the job stopped (exit code 3)"])
      expect(yield* failure("memory")).toEqual(["memory", "the job needs more than 16 MiB"])
    }))

  it.live("its failures carry the tag ScriptWorkerFailed, for catchTag", () =>
    Effect.gen(function*() {
      const caught = yield* start("throw").pipe(Effect.catchTag("ScriptWorkerFailed", (error) => Effect.succeed(error.reason)))
      expect(caught).toBe("error")
      const result = yield* run("exit")
      expect(Either.isLeft(result) && result.left._tag).toBe("ScriptWorkerFailed")
    }))

  it.live("a script that never ends is stopped at the deadline", () =>
    Effect.gen(function*() {
      const started = Date.now()
      expect(yield* failure("spin", "300 millis")).toEqual(["deadline", "the job did not finish within 300ms"])
      expect(Date.now() - started).toBeLessThan(5_000)
    }))

  it.live("runs without the host's Node flags", () =>
    Effect.gen(function*() {
      expect(yield* run("argv")).toEqual(Either.right([]))
    }))

  it.live("what the script prints stays in the worker", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const spy = (stream: NodeJS.WriteStream) => {
        const write = stream.write.bind(stream)
        stream.write = ((chunk: string | Uint8Array, ...rest: Array<never>) => {
          written.push(String(chunk))
          return write(chunk, ...rest)
        }) as typeof stream.write
        return () => {
          stream.write = write
        }
      }
      const restore = [spy(process.stdout), spy(process.stderr)]
      const result = yield* run("print").pipe(
        // time for output forwarded from the worker to arrive, if it were forwarded
        Effect.tap(() => Effect.sleep("200 millis")),
        Effect.ensuring(Effect.sync(() => restore.forEach((undo) => undo())))
      )
      expect(result).toEqual(Either.right("printed"))
      expect(written.filter((chunk) => chunk.includes("noise"))).toEqual([])
    }))
})
