/**
 * How a handler's run is bounded, through the executor: a handler without a deadline is never
 * cut short (live clock or `TestClock`); a memory cap lets modest growth through; when both
 * limits are set the first one hit names the result; a handler that interrupts itself
 * interrupts the call; a finished call leaves no timer, heap sampler or fiber behind. The
 * proofs that allocate past the heap in use (hundreds of MB where test files share a process),
 * and those where a memory cap and a deadline race, are in `guard.slow.test.ts`; the 48 MB kept
 * under a 128 MB cap in `guard.megabytes.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Deferred, Effect, Exit, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Tool, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { allocate } from "./guardHeap.js"
import { countingSleeps, joinUnmoved, wakeAfter } from "../helpers/testClock.js"

const ws = makeTempDirSync("guard-")

const layerOf = (...tools: ReadonlyArray<Tool.Tool<never>>) =>
  ToolSystem.layerNode({ builtins: false, tools, workspace: Workspace.layerFixed(ws) })

const exec = (name: string) => Effect.flatMap(ToolSystem, (t) => t.execute(name, {}))

/**
 * Runs `effect` while recording every timer and interval this thread starts; the number of
 * them still pending when it ends (neither fired nor cleared), Effect's own yields aside.
 */
const leftTimers = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const pending = new Set<unknown>()
    const { clearInterval: clearI, clearTimeout: clearT, setInterval: setI, setTimeout: setT } = globalThis
    globalThis.setTimeout = ((f: () => void, ms?: number) => {
      const handle = setT(() => {
        pending.delete(handle)
        f()
      }, ms)
      if ((ms ?? 0) >= 10) pending.add(handle)
      return handle
    }) as typeof setTimeout
    globalThis.setInterval = ((f: () => void, ms?: number) => {
      const handle = setI(f, ms)
      pending.add(handle)
      return handle
    }) as typeof setInterval
    globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
      pending.delete(handle)
      clearT(handle)
    }) as typeof clearTimeout
    globalThis.clearInterval = ((handle: Parameters<typeof clearInterval>[0]) => {
      pending.delete(handle)
      clearI(handle)
    }) as typeof clearInterval
    return effect.pipe(
      Effect.map((a) => [a, pending.size] as const),
      Effect.ensuring(Effect.sync(() => {
        Object.assign(globalThis, { clearInterval: clearI, clearTimeout: clearT, setInterval: setI, setTimeout: setT })
      }))
    )
  })

describe("a handler without a deadline", () => {
  it.live("is not cut short on the live clock", () =>
    Effect.gen(function*() {
      const slow = Tool.make("slow_live", {
        description: "Takes 30 ms, no timeout",
        parameters: Schema.Struct({}),
        readOnly: true,
        handler: () => Effect.as(Effect.sleep("30 millis"), "done")
      })
      const r = yield* exec("slow_live").pipe(Effect.provide(layerOf(slow)))
      expect(r).toMatchObject({ success: true, output: "done" })
      expect(r.durationMs).toBeGreaterThanOrEqual(25)
    }))

  it.effect("is not cut short under TestClock: it ends when the clock reaches its own wait", () =>
    Effect.gen(function*() {
      const slow = Tool.make("slow_test_clock", {
        description: "Waits 10 s of the fiber's clock, no timeout",
        parameters: Schema.Struct({}),
        readOnly: true,
        handler: () => Effect.as(Effect.sleep("10 seconds"), "done")
      })
      yield* Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(exec("slow_test_clock"))
        yield* TestClock.adjust("9 seconds")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 second")
        expect(yield* Fiber.join(fiber)).toMatchObject({ success: true, output: "done" })
      }).pipe(Effect.provide(layerOf(slow)))
    }))
})

describe("a memory cap", () => {
  // live clock: the heap is sampled by a real setInterval; the handler holds its memory for real time
  it.live("lets a handler whose heap grows less than the cap run to its end", () =>
    Effect.gen(function*() {
      const modest = Tool.make("modest", {
        description: "Keeps a few MB for 200 ms under a 32 MB cap",
        parameters: Schema.Struct({}),
        readOnly: true,
        memoryLimitMb: 32,
        handler: () =>
          Effect.gen(function*() {
            const kept = allocate(2)
            yield* Effect.sleep("200 millis")
            return kept.length
          })
      })
      const r = yield* exec("modest").pipe(Effect.provide(layerOf(modest)))
      expect(r).toMatchObject({ success: true, output: 2 * 131_072 })
    }))
})

describe("interruption from inside", () => {
  it.effect("a handler that interrupts itself after a wait interrupts the call: no result", () =>
    Effect.gen(function*() {
      const quitter = Tool.make("quitter", {
        description: "Interrupts itself after 20 ms",
        parameters: Schema.Struct({}),
        readOnly: true,
        handler: () => Effect.andThen(Effect.sleep("20 millis"), Effect.interrupt)
      })
      const exit = yield* Effect.gen(function*() {
        const call = yield* Effect.forkChild(Effect.exit(exec("quitter")))
        yield* wakeAfter(20)
        return yield* joinUnmoved(call)
      }).pipe(Effect.provide(layerOf(quitter)), countingSleeps)
      expect(Exit.hasInterrupts(exit)).toBe(true)
    }))
})

describe("a finished call leaves nothing behind", () => {
  // live clock: on it the deadline is a real setTimeout, and the heap sampler a real setInterval
  it.live("no timer: neither its deadline nor its heap sampler keeps the process alive", () =>
    Effect.gen(function*() {
      const capped = Tool.make("capped", {
        description: "Takes 20 ms under a 10 s deadline and a 512 MB cap",
        parameters: Schema.Struct({}),
        readOnly: true,
        timeout: "10 seconds",
        memoryLimitMb: 512,
        handler: () => Effect.as(Effect.sleep("20 millis"), "done")
      })
      yield* Effect.gen(function*() {
        const tools = yield* ToolSystem
        const [r, left] = yield* leftTimers(tools.execute("capped", {}))
        expect(r).toMatchObject({ success: true, output: "done" })
        expect(left).toBe(0)
      }).pipe(Effect.provide(layerOf(capped)))
    }))

  // live clock: on it the deadline is a real setTimeout, which must be cleared when it fired too
  it.live("no timer after a timeout either", () =>
    Effect.gen(function*() {
      const late = Tool.make("late", {
        description: "Sleeps past its 30 ms deadline under a 512 MB cap",
        parameters: Schema.Struct({}),
        readOnly: true,
        timeout: "30 millis",
        memoryLimitMb: 512,
        handler: () => Effect.as(Effect.sleep("10 seconds"), "woke")
      })
      yield* Effect.gen(function*() {
        const tools = yield* ToolSystem
        const [r, left] = yield* leftTimers(tools.execute("late", {}))
        expect(r).toMatchObject({ success: false, errorCode: "TIMEOUT" })
        expect(left).toBe(0)
      }).pipe(Effect.provide(layerOf(late)))
    }))

  // Effect 4 has no Supervisor: the fibers the call started that the test can see (the
  // handler's, and each one that sleeps on the clock: the deadline's) are kept, and polled
  it.effect("no fiber under TestClock: the deadline's sleep ends with the call", () =>
    Effect.gen(function*() {
      const seen: Array<Fiber.Fiber<unknown, unknown>> = []
      const asleep = yield* Deferred.make<void>()
      const sleepers = new Set<Fiber.Fiber<unknown, unknown>>()
      const running = () => seen.filter((f) => f.pollUnsafe() === undefined).length
      const sleeping = () => seen.filter((f) => f.pollUnsafe() === undefined && sleepers.has(f)).length
      const sleepsSeen = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        TestClock.testClockWith((inner) =>
          Effect.provideService(effect, Clock.Clock, {
            ...inner,
            sleep: (duration) =>
              Effect.withFiber((sleeper) => {
                seen.push(sleeper)
                sleepers.add(sleeper)
                return Effect.andThen(Deferred.succeed(asleep, undefined), inner.sleep(duration))
              })
          })
        )
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<string>()
      const waits = Tool.make("waits", {
        description: "Waits for the test, under a one-minute deadline",
        parameters: Schema.Struct({}),
        readOnly: true,
        timeout: "1 minute",
        handler: () =>
          Effect.withFiber((handlerFiber) => {
            seen.push(handlerFiber)
            return Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(release))
          })
      })
      yield* Effect.gen(function*() {
        const tools = yield* ToolSystem
        const fiber = yield* Effect.forkChild(tools.execute("waits", {}))
        yield* Deferred.await(started)
        yield* Deferred.await(asleep)
        // the handler's fiber and the deadline's sleep are running
        expect(running()).toBeGreaterThan(0)
        expect(sleeping()).toBeGreaterThan(0)
        yield* Deferred.succeed(release, "released")
        expect(yield* Fiber.join(fiber)).toMatchObject({ success: true, output: "released" })
        // a few turns at least: a fiber forked late has slept by then
        for (let i = 0; i < 100 && (i < 10 || running() > 0); i++) yield* Effect.yieldNow
        expect(seen.filter((f) => f.pollUnsafe() === undefined)).toEqual([])
      }).pipe(Effect.provide(layerOf(waits)), sleepsSeen)
    }))
})
