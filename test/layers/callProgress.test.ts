/**
 * A call's progress channel (`reportProgress`, `ExecuteOptions.onProgress`), through the
 * executor: updates reach the listener in order, the first at once and then at most one per
 * interval on the fiber's Clock (the latest kept, the last one sent as the handler ends);
 * non-increasing, non-finite and negative progress is dropped, a `total` below the progress
 * left out, a message cut; a listener that dies, fails, throws or never ends leaves the call
 * as it was; nothing happens outside a call with a listener; a million reports reach the
 * listener as a handful of updates. The edges are pinned too: a message of exactly the cap, a
 * surrogate pair at the cut, a first progress of 0, a held update at exactly the interval's end,
 * the first update with the clock exactly at its start, the last one sent before the run returns.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Deferred, Duration, Effect, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import {
  MAX_PROGRESS_MESSAGE_CHARS,
  PROGRESS_INTERVAL_MS,
  progressReporter,
  type ProgressUpdate,
  reportProgress,
  Tool,
  ToolSystem,
  Workspace
} from "../../src/index.js"
import type { ExecuteOptions } from "../../src/index.js"
import { withCallProgress } from "../../src/layers/callProgress.js"
import { recordingLogs, textOf } from "../helpers/recordingLogs.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { countingSleeps, joinUnmoved, sleepersUntil, until } from "../helpers/testClock.js"

const ws = makeTempDirSync("call-progress-")

const layerOf = (...tools: ReadonlyArray<Tool.Tool<never>>) =>
  ToolSystem.layerNode({ builtins: false, tools, workspace: Workspace.layerFixed(ws) })

const exec = (name: string, options?: ExecuteOptions) => Effect.flatMap(ToolSystem, (t) => t.execute(name, {}, options))

/** A tool whose handler is `handler`. */
const toolOf = (name: string, handler: () => Effect.Effect<unknown>, timeout?: Duration.Input) =>
  Tool.make(name, {
    description: `The ${name} test tool`,
    parameters: Schema.Struct({}),
    readOnly: true,
    ...(timeout === undefined ? {} : { timeout }),
    handler
  })

/** A listener that keeps what it hears. */
const recorder = () => {
  const heard: Array<ProgressUpdate> = []
  return { heard, onProgress: (update: ProgressUpdate) => Effect.sync(() => void heard.push(update)) }
}

describe("the channel's order and throttle (TestClock)", () => {
  it.effect("the first update at once, then at most one per interval, the latest kept, the last sent as the handler ends", () =>
    Effect.gen(function*() {
      const step1 = yield* Deferred.make<void>()
      const step2 = yield* Deferred.make<void>()
      let reached = 0
      const stepper = toolOf("stepper", () =>
        Effect.gen(function*() {
          yield* reportProgress({ progress: 1, total: 10, message: "one" })
          yield* Deferred.await(step1)
          yield* reportProgress({ progress: 2, total: 10 })
          yield* reportProgress({ progress: 3, total: 10, message: "three" })
          reached = 1
          yield* Deferred.await(step2)
          yield* reportProgress({ progress: 4, total: 10, message: "four" })
          return "done"
        }))
      const { heard, onProgress } = recorder()
      yield* Effect.gen(function*() {
        const call = yield* Effect.forkChild(exec("stepper", { onProgress }))
        yield* until(() => heard.length === 1, "the first update")
        expect(heard).toEqual([{ progress: 1, total: 10, message: "one" }])
        yield* Deferred.succeed(step1, undefined)
        yield* until(() => reached === 1, "the second and third reports")
        // the deliveries wait for the interval: 2 and 3 are held, 3 replacing 2
        yield* sleepersUntil(PROGRESS_INTERVAL_MS)
        expect(heard).toHaveLength(1)
        yield* TestClock.adjust(PROGRESS_INTERVAL_MS)
        yield* until(() => heard.length === 2, "the held update after the interval")
        expect(heard[1]).toEqual({ progress: 3, total: 10, message: "three" })
        // the last update: held by the throttle, sent as the handler ends, without the clock moving
        yield* Deferred.succeed(step2, undefined)
        const result = yield* joinUnmoved(call)
        expect(result).toMatchObject({ success: true, output: "done" })
        yield* until(() => heard.length === 3, "the last update as the handler ended")
        expect(heard.map((u) => u.progress)).toEqual([1, 3, 4])
        expect(heard[2]).toEqual({ progress: 4, total: 10, message: "four" })
      }).pipe(Effect.provide(layerOf(stepper)), countingSleeps)
    }))

  it.effect("each call has its own channel: two calls at once hear their own progress", () =>
    Effect.gen(function*() {
      const twice = toolOf("twice", () => Effect.as(reportProgress({ progress: 1 }), "ok"))
      const a = recorder()
      const b = recorder()
      yield* Effect.all([exec("twice", { onProgress: a.onProgress }), exec("twice", { onProgress: b.onProgress })], {
        concurrency: 2
      }).pipe(Effect.provide(layerOf(twice)))
      yield* until(() => a.heard.length === 1 && b.heard.length === 1, "each call's update")
      expect(a.heard).toEqual([{ progress: 1 }])
      expect(b.heard).toEqual([{ progress: 1 }])
    }))
})

describe("what the channel drops", () => {
  it.effect("progress not above the last, not finite, negative or not a number is dropped", () =>
    Effect.gen(function*() {
      const noisy = toolOf("noisy", () =>
        Effect.gen(function*() {
          for (const progress of [Number.NaN, -1, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
            yield* reportProgress({ progress })
          }
          // a caller outside TypeScript
          yield* reportProgress(JSON.parse(`{"progress":"3"}`))
          yield* reportProgress({ progress: 5 })
          for (const progress of [5, 4, 0, Number.NaN, -0]) yield* reportProgress({ progress })
          return "ok"
        }))
      const { heard, onProgress } = recorder()
      const result = yield* exec("noisy", { onProgress }).pipe(Effect.provide(layerOf(noisy)))
      expect(result.success).toBe(true)
      yield* until(() => heard.length === 1, "the one valid update")
      // a turn more: nothing else comes
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      expect(heard).toEqual([{ progress: 5 }])
    }))

  it.effect("a total below the progress or not finite is left out; a long message is cut, not inside a surrogate pair", () =>
    Effect.gen(function*() {
      const long = `${"a".repeat(MAX_PROGRESS_MESSAGE_CHARS - 2)}😀${"b".repeat(5000)}`
      const shaped = toolOf("shaped", () =>
        Effect.gen(function*() {
          yield* reportProgress({ progress: 0, total: -1 })
          yield* reportProgress({ progress: 7, total: 3, message: long })
          return "ok"
        }))
      const first = recorder()
      yield* exec("shaped", { onProgress: first.onProgress }).pipe(Effect.provide(layerOf(shaped)))
      yield* until(() => first.heard.at(-1)?.progress === 7, "the last update")
      // the first update went out alone when the deliveries' fiber ran before the handler's end
      const update = first.heard.at(-1)
      expect(first.heard.length === 1 || JSON.stringify(first.heard[0]) === `{"progress":0}`).toBe(true)
      expect(update?.progress).toBe(7)
      expect(update).not.toHaveProperty("total")
      expect(update?.message?.length).toBeLessThanOrEqual(MAX_PROGRESS_MESSAGE_CHARS)
      expect(update?.message?.endsWith("…")).toBe(true)
      // the cut fell on the emoji's first half: it is left out whole
      expect(update?.message).toBe(`${"a".repeat(MAX_PROGRESS_MESSAGE_CHARS - 2)}…`)
      const infinite = toolOf("infinite_total", () => Effect.as(reportProgress({ progress: 1, total: Infinity }), "ok"))
      const second = recorder()
      yield* exec("infinite_total", { onProgress: second.onProgress }).pipe(Effect.provide(layerOf(infinite)))
      yield* until(() => second.heard.length === 1, "the update")
      expect(second.heard).toEqual([{ progress: 1 }])
    }))
})

describe("a listener cannot hurt the call", () => {
  it.effect("a listener that dies or throws: the call's result is unchanged, the first failure logged once", () =>
    Effect.gen(function*() {
      const reporter = toolOf("reporter", () =>
        Effect.gen(function*() {
          for (let i = 1; i <= 5; i++) yield* reportProgress({ progress: i })
          return "ok"
        }))
      const listeners: ReadonlyArray<(update: ProgressUpdate) => Effect.Effect<void>> = [
        () => Effect.die(new Error("listener died")),
        () => {
          throw new Error("listener threw")
        },
        () =>
          Effect.sync(() => {
            throw new Error("listener threw inside its effect")
          })
      ]
      for (const onProgress of listeners) {
        let calls = 0
        const [result, lines] = yield* recordingLogs(
          Effect.gen(function*() {
            const counted = (update: ProgressUpdate) => {
              calls++
              return onProgress(update)
            }
            const r = yield* exec("reporter", { onProgress: counted })
            yield* until(() => calls >= 1, "the listener's call")
            return r
          }).pipe(Effect.provide(layerOf(reporter)))
        )
        expect(result).toMatchObject({ success: true, output: "ok" })
        yield* until(() => lines.some((line) => textOf(line).includes("progress listener failed")), "the logged failure")
        expect(lines.filter((line) => textOf(line).includes("progress listener failed"))).toHaveLength(1)
      }
    }))

  it.effect("a listener that never ends (even uninterruptibly) does not hold the call", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const reporter = toolOf("reporter", () =>
        Effect.gen(function*() {
          yield* reportProgress({ progress: 1 })
          yield* Effect.yieldNow
          yield* reportProgress({ progress: 2 })
          return "ok"
        }))
      let started = 0
      const stuck = (_: ProgressUpdate) =>
        Effect.uninterruptible(Effect.suspend(() => {
          started++
          return Deferred.await(release)
        }))
      const result = yield* exec("reporter", { onProgress: stuck }).pipe(Effect.provide(layerOf(reporter)))
      expect(result).toMatchObject({ success: true, output: "ok" })
      yield* until(() => started >= 1, "the listener's start")
      yield* Deferred.succeed(release, undefined)
    }))

  it.effect("a call whose deadline passes is a TIMEOUT, and no update follows its end", () =>
    Effect.gen(function*() {
      let report: ((update: ProgressUpdate) => void) | undefined
      const hanging = toolOf("hanging", () =>
        Effect.gen(function*() {
          report = yield* progressReporter
          report({ progress: 1 })
          return yield* Effect.never
        }), "1 second")
      const { heard, onProgress } = recorder()
      yield* Effect.gen(function*() {
        const call = yield* Effect.forkChild(exec("hanging", { onProgress }))
        yield* until(() => heard.length === 1, "the first update")
        yield* TestClock.adjust("1 second")
        expect(yield* Fiber.join(call)).toMatchObject({ success: false, errorCode: "TIMEOUT" })
      }).pipe(Effect.provide(layerOf(hanging)))
      // the reporter a handler kept past its call reaches no one
      report?.({ progress: 2 })
      yield* TestClock.adjust("1 second")
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      expect(heard).toEqual([{ progress: 1 }])
    }))
})

describe("outside a call with a listener", () => {
  it.effect("reportProgress and progressReporter do nothing, in a call without a listener and outside any call", () =>
    Effect.gen(function*() {
      yield* reportProgress({ progress: 1 })
      const offer = yield* progressReporter
      offer({ progress: 1 })
      const quiet = toolOf("quiet", () =>
        Effect.gen(function*() {
          yield* reportProgress({ progress: 1 })
          ;(yield* progressReporter)({ progress: 2 })
          return "ok"
        }))
      const result = yield* exec("quiet").pipe(Effect.provide(layerOf(quiet)))
      expect(result).toMatchObject({ success: true, output: "ok" })
    }))
})

describe("a flood", () => {
  it.effect("a million reports in a loop reach the listener as two updates (the first and the last)", () =>
    Effect.gen(function*() {
      const flood = toolOf("flood", () =>
        Effect.gen(function*() {
          const offer = yield* progressReporter
          for (let i = 1; i <= 1_000_000; i++) offer({ progress: i, total: 1_000_000, message: "flooding" })
          for (let i = 1_000_001; i <= 1_100_000; i++) yield* reportProgress({ progress: i })
          return "ok"
        }))
      const { heard, onProgress } = recorder()
      const result = yield* exec("flood", { onProgress }).pipe(Effect.provide(layerOf(flood)))
      expect(result).toMatchObject({ success: true, output: "ok" })
      yield* until(() => heard.length >= 1 && heard.at(-1)?.progress === 1_100_000, "the last update")
      // the clock never moved: the first update (before the deliveries' fiber ran, the latest) and the last
      expect(heard.length).toBeLessThanOrEqual(2)
    }))
})

/** One call of a tool that reports `update` and ends; what the listener heard. */
const heardFrom = (update: ProgressUpdate) =>
  Effect.gen(function*() {
    const once = toolOf("once", () => Effect.as(reportProgress(update), "ok"))
    const { heard, onProgress } = recorder()
    const result = yield* exec("once", { onProgress }).pipe(Effect.provide(layerOf(once)))
    expect(result).toMatchObject({ success: true, output: "ok" })
    // the last update went out (or not) as the handler ended; a turn more for anything late
    yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
    return heard
  })

/** The message the listener gets for `message`. */
const messageHeard = (message: string) =>
  Effect.map(heardFrom({ progress: 1, message }), (heard) => {
    expect(heard).toHaveLength(1)
    return heard[0]?.message
  })

describe("the message cap's edges", () => {
  it.effect("a message of exactly the cap is whole; one a char longer is cut to the cap, the ellipsis last", () =>
    Effect.gen(function*() {
      const atCap = "a".repeat(MAX_PROGRESS_MESSAGE_CHARS)
      expect(yield* messageHeard(atCap)).toBe(atCap)
      const cut = yield* messageHeard(`${atCap}b`)
      expect(cut).toBe(`${"a".repeat(MAX_PROGRESS_MESSAGE_CHARS - 1)}…`)
      expect(cut).toHaveLength(MAX_PROGRESS_MESSAGE_CHARS)
    }))

  it.effect("the cut drops a pair's high half (U+D800 and U+DBFF exactly), and keeps a pair that ends at the cut", () =>
    Effect.gen(function*() {
      const keep = MAX_PROGRESS_MESSAGE_CHARS - 2
      // the cut is after MAX - 1 code units: a pair at MAX - 2 and MAX - 1 would be split
      for (const pair of ["\ud800\udc00", "\udbff\udfff", "😀"]) {
        expect(yield* messageHeard(`${"a".repeat(keep)}${pair}${"b".repeat(10)}`)).toBe(`${"a".repeat(keep)}…`)
      }
      // a pair at MAX - 3 and MAX - 2: its low half is last before the cut, and it stays whole
      const whole = `${"a".repeat(keep - 1)}😀`
      expect(yield* messageHeard(`${whole}${"b".repeat(10)}`)).toBe(`${whole}…`)
      // a char above the surrogates last before the cut is kept
      const high = `${"a".repeat(keep)}\ue000`
      expect(yield* messageHeard(`${high}${"b".repeat(10)}`)).toBe(`${high}…`)
    }))
})

describe("the progress check's edges", () => {
  it.effect("a first progress of 0 is taken; one between -1 and 0 is dropped", () =>
    Effect.gen(function*() {
      expect(yield* heardFrom({ progress: 0 })).toEqual([{ progress: 0 }])
      expect(yield* heardFrom({ progress: -0.5 })).toEqual([])
    }))

  it.effect("a call with a listener whose handler reports nothing: the listener hears nothing", () =>
    Effect.gen(function*() {
      const silent = toolOf("silent", () => Effect.succeed("ok"))
      const { heard, onProgress } = recorder()
      const result = yield* exec("silent", { onProgress }).pipe(Effect.provide(layerOf(silent)))
      expect(result).toMatchObject({ success: true, output: "ok" })
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      expect(heard).toEqual([])
    }))

  it.effect("the last update reaches a listener that records synchronously before the handler's run returns", () =>
    Effect.gen(function*() {
      const { heard, onProgress } = recorder()
      // the first report's delivery goes out at once; the second is held by the throttle
      const result = yield* withCallProgress(
        onProgress,
        Effect.as(Effect.andThen(reportProgress({ progress: 1 }), reportProgress({ progress: 2 })), "ok")
      )
      // no turn between: the final delivery ran as the run ended
      expect(heard).toEqual([{ progress: 1 }, { progress: 2 }])
      expect(result).toBe("ok")
    }))
})

/**
 * `effect` on the TestClock, but with a sleep of no time yielding (as the live Clock's does),
 * where the TestClock's returns at once: a needless sleep before a delivery is then seen.
 */
const yieldingZeroSleeps = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  TestClock.testClockWith((inner) =>
    Effect.provideService(effect, Clock.Clock, {
      ...inner,
      currentTimeMillisUnsafe: () => inner.currentTimeMillisUnsafe(),
      currentTimeNanosUnsafe: () => inner.currentTimeNanosUnsafe(),
      monotonicTimeNanosUnsafe: () => inner.monotonicTimeNanosUnsafe(),
      currentTimeMillis: inner.currentTimeMillis,
      currentTimeNanos: inner.currentTimeNanos,
      monotonicTimeNanos: inner.monotonicTimeNanos,
      sleep: (duration) => Duration.toMillis(duration) <= 0 ? Effect.yieldNow : inner.sleep(duration)
    })
  )

describe("the throttle's edges (TestClock)", () => {
  it.effect("the first update goes out without a sleep (the clock exactly at its start): the report right after it does not replace it", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let reached = false
      const twice = toolOf("twice", () =>
        Effect.gen(function*() {
          // the deliveries' fiber, started by the first report, takes it before the second
          yield* reportProgress({ progress: 1 })
          yield* reportProgress({ progress: 2 })
          reached = true
          yield* Deferred.await(gate)
          return "ok"
        }))
      const { heard, onProgress } = recorder()
      yield* Effect.gen(function*() {
        // the clock at 0: the first delivery's start (0) is exactly now
        const call = yield* Effect.forkChild(exec("twice", { onProgress }))
        yield* until(() => reached && heard.length === 1, "the first update and the second report")
        expect(heard).toEqual([{ progress: 1 }])
        yield* Deferred.succeed(gate, undefined)
        expect(yield* Fiber.join(call)).toMatchObject({ success: true, output: "ok" })
        yield* until(() => heard.length === 2, "the last update as the handler ended")
        expect(heard).toEqual([{ progress: 1 }, { progress: 2 }])
      }).pipe(Effect.provide(layerOf(twice)), yieldingZeroSleeps)
    }))

  it.effect("a held update goes out exactly an interval after the one before, not a millisecond sooner (the clock not at 0)", () =>
    Effect.gen(function*() {
      const step = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      let reached = false
      const stepper = toolOf("stepper", () =>
        Effect.gen(function*() {
          yield* reportProgress({ progress: 1 })
          yield* Deferred.await(step)
          yield* reportProgress({ progress: 2 })
          reached = true
          yield* Deferred.await(gate)
          return "ok"
        }))
      const { heard, onProgress } = recorder()
      yield* Effect.gen(function*() {
        yield* TestClock.adjust(1000)
        const call = yield* Effect.forkChild(exec("stepper", { onProgress }))
        yield* until(() => heard.length === 1, "the first update")
        yield* Deferred.succeed(step, undefined)
        yield* until(() => reached, "the second report")
        yield* sleepersUntil(1000 + PROGRESS_INTERVAL_MS)
        yield* TestClock.adjust(PROGRESS_INTERVAL_MS - 1)
        yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
        expect(heard).toEqual([{ progress: 1 }])
        yield* TestClock.adjust(1)
        yield* until(() => heard.length === 2, "the held update at the interval")
        expect(heard).toEqual([{ progress: 1 }, { progress: 2 }])
        yield* Deferred.succeed(gate, undefined)
        expect(yield* Fiber.join(call)).toMatchObject({ success: true, output: "ok" })
      }).pipe(Effect.provide(layerOf(stepper)), countingSleeps)
    }))
})
