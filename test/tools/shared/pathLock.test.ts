/**
 * `pathLock.ts`: one lock per path for the whole process. Calls on one path run one after the
 * other, calls on different paths at once; several paths are taken in one order (no deadlock),
 * duplicates once; the table is empty again when the calls end, however they end.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { lockedPathCount, withPathLock, withPathLocks } from "../../../src/tools/shared/pathLock.js"

describe("withPathLock", () => {
  it.effect("serializes calls on one path; a call on another path runs meanwhile", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const release = yield* Deferred.make<void>()
      const first = yield* Effect.fork(withPathLock("/ws/a")(Effect.zipRight(
        Effect.sync(() => log.push("first in")),
        Effect.zipRight(Deferred.await(release), Effect.sync(() => log.push("first out")))
      )))
      yield* Effect.yieldNow()
      const second = yield* Effect.fork(withPathLock("/ws/a")(Effect.sync(() => log.push("second"))))
      yield* withPathLock("/ws/b")(Effect.sync(() => log.push("other path")))
      yield* Effect.yieldNow()
      expect(log).toEqual(["first in", "other path"])
      expect(lockedPathCount()).toBe(1)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      expect(log).toEqual(["first in", "other path", "first out", "second"])
      expect(lockedPathCount()).toBe(0)
    }))

  it.live("takes several paths in one order and a duplicate once: crossed pairs do not deadlock", () =>
    Effect.gen(function*() {
      let done = 0
      const work = Effect.zipRight(Effect.yieldNow(), Effect.sync(() => done++))
      yield* Effect.all([
        withPathLocks(["/ws/x", "/ws/y"])(work),
        withPathLocks(["/ws/y", "/ws/x"])(work),
        withPathLocks(["/ws/x", "/ws/x"])(work),
        withPathLocks(["/ws/y", "/ws/x", "/ws/y"])(work)
      ], { concurrency: "unbounded" }).pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => "deadlock" }))
      expect(done).toBe(4)
      expect(lockedPathCount()).toBe(0)
    }), { timeout: 10_000 })

  it.effect("a failed, a dying and an interrupted call (holding or waiting) give their places back", () =>
    Effect.gen(function*() {
      const failed = yield* Effect.either(withPathLock("/ws/f")(Effect.fail("no")))
      expect(failed._tag).toBe("Left")
      const died = yield* Effect.exit(withPathLock("/ws/f")(Effect.die("boom")))
      expect(died._tag).toBe("Failure")
      expect(lockedPathCount()).toBe(0)
      const holder = yield* Effect.fork(withPathLock("/ws/i")(Effect.never))
      yield* Effect.yieldNow()
      const waiter = yield* Effect.fork(withPathLock("/ws/i")(Effect.void))
      yield* Effect.yieldNow()
      expect(lockedPathCount()).toBe(1)
      yield* Fiber.interrupt(waiter)
      yield* Fiber.interrupt(holder)
      expect(lockedPathCount()).toBe(0)
      // the path is free again
      yield* withPathLock("/ws/i")(Effect.void)
      expect(lockedPathCount()).toBe(0)
    }))
})
