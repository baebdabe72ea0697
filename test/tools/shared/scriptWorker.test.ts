/**
 * `runScriptWorker`: a script in a worker thread answers with its first message; each way a
 * worker can end without one is a typed failure that says what happened, the deadline stops a
 * script that never ends, and the worker's output never reaches the host's.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Duration, Effect, Result } from "effect"
import { TestClock } from "effect/testing"
import { runScriptWorker } from "../../../src/tools/shared/scriptWorker.js"
import { reasonAndMessage } from "../../helpers/reasonAndMessage.js"
import { countingSleeps, joinUnmoved, sleepersUntil } from "../../helpers/testClock.js"

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

const start = (act: string, value?: unknown, deadline: Duration.Input = "20 seconds") =>
  runScriptWorker(SCRIPT, { act, value }, { deadline, heapMb: 16, what: "the job" })

const run = (act: string, value?: unknown) => Effect.result(start(act, value))

const failure = (act: string, deadline?: Duration.Input) => reasonAndMessage(start(act, undefined, deadline))

// live clock: real worker threads, their start, answers and ends; but the deadline test: the
// deadline is an Effect.timeoutOrElse on the fiber's Clock, moved on the TestClock (under countingSleeps, which sees the sleep)
describe("runScriptWorker", () => {
  it.live("answers with the script's first message, given its workerData", () =>
    Effect.gen(function*() {
      expect(yield* run("answer", [1, "two"])).toEqual(Result.succeed({ got: [1, "two"] }))
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
      expect(Result.isFailure(result) && result.failure._tag).toBe("ScriptWorkerFailed")
    }))

  it.effect("a script that never ends is stopped at the deadline", () =>
    Effect.gen(function*() {
      const run = yield* Effect.forkChild(failure("spin", "300 millis"))
      // running at 299 ms of the clock, stopped at 300 and its worker ended within 5 s of real time
      yield* sleepersUntil(300)
      yield* TestClock.adjust(299)
      expect(run.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(1)
      expect(yield* joinUnmoved(run, 5_000)).toEqual(["deadline", "the job did not finish within 300ms"])
    }).pipe(countingSleeps))

  it.live("runs without the host's Node flags", () =>
    Effect.gen(function*() {
      expect(yield* run("argv")).toEqual(Result.succeed([]))
    }))

  it.live("what the script prints stays in the worker", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      // puts back the stream's own writer (not a bound copy of it: the test files after this one,
      // in the same process, get the writer they would have had)
      const spy = (stream: NodeJS.WriteStream) => {
        const write = stream.write
        stream.write = ((chunk: string | Uint8Array, ...rest: Array<never>) => {
          written.push(String(chunk))
          return write.call(stream, chunk, ...rest)
        }) as typeof stream.write
        return () => {
          stream.write = write
        }
      }
      const restore = [spy(process.stdout), spy(process.stderr)]
      const result = yield* run("print").pipe(
        // time for output forwarded from the worker to arrive, if it were forwarded (on the live
        // clock: a real 200 ms, more than a forwarded chunk takes to cross threads)
        Effect.tap(() => Effect.sleep("200 millis")),
        Effect.ensuring(Effect.sync(() => restore.forEach((undo) => undo())))
      )
      expect(result).toEqual(Result.succeed("printed"))
      expect(written.filter((chunk) => chunk.includes("noise"))).toEqual([])
    }))
})
