/**
 * The host's waits on a sandbox Worker (`workerEvents.ts`), against real Workers that play the
 * sandbox worker's part from a script: the protocol's message check, an answer to another
 * request, a Worker that throws, runs out of memory, exits, or never answers, and what a wait
 * leaves behind (its listeners, its deadline timer).
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { Worker } from "node:worker_threads"
import { describeError, dispatch, firstEvent, isMessage } from "../../../../src/tools/builtin/sandbox/workerEvents.js"
import { refTimers } from "../../../helpers/eventLoop.js"

const workers: Array<Worker> = []
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.terminate()))
})

/** A Worker running `body` (CommonJS, `parentPort` in scope) on each request it is sent. */
const scripted = (body: string, options: { readonly maxOldGenerationSizeMb?: number } = {}): Worker => {
  const worker = new Worker(
    `const { parentPort } = require("node:worker_threads")\nparentPort.on("message", (request) => {\n${body}\n})`,
    {
      eval: true,
      stdout: true,
      stderr: true,
      ...(options.maxOldGenerationSizeMb === undefined
        ? {}
        : { resourceLimits: { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb } })
    }
  )
  workers.push(worker)
  return worker
}

const listeners = (worker: Worker) => ({
  message: worker.listenerCount("message"),
  error: worker.listenerCount("error"),
  exit: worker.listenerCount("exit")
})

const request = { id: 7, code: "1", timeoutMs: 1000 }

// live clock (it.live): real Worker threads; dispatch's deadline is a Node timer (workerEvents.ts)
describe("sandbox worker events", () => {
  it("isMessage takes the protocol's two messages only", () => {
    expect(isMessage({ type: "ready" })).toBe(true)
    expect(isMessage({ type: "done", id: 1 })).toBe(true)
    expect(isMessage({ type: "other" })).toBe(false)
    expect(isMessage({ kind: "ready" })).toBe(false)
    expect(isMessage("ready")).toBe(false)
    expect(isMessage(null)).toBe(false)
  })

  it("describeError adds a string code, and only a string one", () => {
    expect(describeError(Object.assign(new Error("it broke"), { code: "E_BROKEN" }))).toBe("it broke (E_BROKEN)")
    expect(describeError(Object.assign(new Error("it broke"), { code: 3 }))).toBe("it broke")
    expect(describeError(new Error("it broke"))).toBe("it broke")
  })

  it.live("dispatch takes the answer to its own request, and removes its listeners", () =>
    Effect.gen(function*() {
      const worker = scripted(`
        const outcome = (result) => ({ kind: "ok", stdout: "", result })
        parentPort.postMessage({ type: "ready" })
        parentPort.postMessage({ type: "done", id: request.id + 1, outcome: outcome("other"), recycle: false })
        parentPort.postMessage({ type: "done", id: request.id, outcome: outcome("mine"), recycle: true, diagnostics: ["note"] })
      `)
      const before = listeners(worker)
      const dispatched = yield* dispatch(worker, request, 10_000)
      expect(dispatched).toEqual({
        outcome: { kind: "ok", stdout: "", result: "mine" },
        reusable: false,
        diagnostics: ["note"]
      })
      expect(listeners(worker)).toEqual(before)
    }))

  it.live("a Worker that throws is a crash that says so, not reusable", () =>
    Effect.gen(function*() {
      const worker = scripted(`throw Object.assign(new Error("guest host broke"), { code: "E_HOST" })`)
      const dispatched = yield* dispatch(worker, request, 10_000)
      expect(dispatched).toEqual({
        outcome: { kind: "crash", message: "the sandbox worker failed: guest host broke (E_HOST)" },
        reusable: false
      })
    }))

  it.live("a Worker out of memory is the memory outcome", () =>
    Effect.gen(function*() {
      const worker = scripted(`const hoard = []; for (;;) hoard.push(new Array(100000).fill(hoard.length))`, {
        maxOldGenerationSizeMb: 16
      })
      const dispatched = yield* dispatch(worker, request, 60_000)
      expect(dispatched).toEqual({ outcome: { kind: "memory", stdout: "" }, reusable: false })
    }), 90_000)

  it.live("a Worker that exits is a crash with its exit code", () =>
    Effect.gen(function*() {
      const worker = scripted(`process.exit(3)`)
      const dispatched = yield* dispatch(worker, request, 10_000)
      expect(dispatched).toEqual({
        outcome: { kind: "crash", message: "the sandbox worker exited (code 3)" },
        reusable: false
      })
    }))

  it("a Worker that never answers is the timeout outcome at the deadline, which keeps the process alive meanwhile", async () => {
    const worker = scripted(`// never answers`)
    const before = listeners(worker)
    // counted in one synchronous stretch, so no other timer comes or goes in between
    const timers = refTimers()
    const fiber = Effect.runFork(dispatch(worker, request, 300))
    expect(refTimers()).toBe(timers + 1)
    const dispatched = await Effect.runPromise(Fiber.join(fiber))
    expect(dispatched).toEqual({ outcome: { kind: "timeout", stdout: "" }, reusable: false })
    expect(listeners(worker)).toEqual(before)
  })

  it("firstEvent without keepAlive holds no timer, settles once, and stop says whether it had settled", () => {
    const worker = scripted(`// never answers`)
    const before = listeners(worker)
    const timers = refTimers()
    const settled: Array<string> = []
    const events = {
      message: (message: unknown) => (message === "mine" ? "message" : undefined),
      error: () => "error",
      exit: (code: number) => `exit ${code}`,
      timeout: () => "timeout"
    }
    const stop = firstEvent(worker, events, 60_000, false, (value) => settled.push(value))
    expect(refTimers()).toBe(timers)
    expect(listeners(worker)).toEqual({ message: before.message + 1, error: before.error + 1, exit: before.exit + 1 })
    worker.emit("message", "not mine")
    expect(settled).toEqual([])
    worker.emit("message", "mine")
    worker.emit("exit", 1)
    expect(settled).toEqual(["message"])
    expect(listeners(worker)).toEqual(before)
    expect(stop()).toBe(true)

    const stopFirst = firstEvent(worker, events, 60_000, true, (value) => settled.push(value))
    expect(refTimers()).toBe(timers + 1)
    expect(stopFirst()).toBe(false)
    expect(refTimers()).toBe(timers)
    worker.emit("message", "mine")
    expect(settled).toEqual(["message"])
  })
  it("firstEvent stopped while a message is being delivered does not look at that message", () => {
    const worker = scripted(`// never answers`)
    const looked: Array<unknown> = []
    const settled: Array<string> = []
    let stop: () => boolean = () => false
    // a listener before the wait's own, which ends the wait as the same message arrives
    const stopOnMessage = () => {
      stop()
    }
    worker.on("message", stopOnMessage)
    stop = firstEvent(worker, {
      message: (message: unknown) => {
        looked.push(message)
        return "message"
      },
      error: () => "error",
      exit: () => "exit",
      timeout: () => "timeout"
    }, 60_000, false, (value) => settled.push(value))
    worker.emit("message", "mine")
    worker.off("message", stopOnMessage)
    expect(looked).toEqual([])
    expect(settled).toEqual([])
    expect(stop()).toBe(true)
  })
})
