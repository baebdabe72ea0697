/**
 * `pathLock.ts`: one lock per path for the whole process. Calls on one path run one after the
 * other, calls on different paths at once; several paths are taken in one order (no deadlock),
 * duplicates once; the table is empty again when the calls end, however they end.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { lockedPathCount, withPathLock, withPathLocks } from "../../../src/tools/shared/pathLock.js"
import { joinUnmoved } from "../../helpers/testClock.js"

describe("withPathLock", () => {
  it.effect("serializes calls on one path; a call on another path runs meanwhile", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const release = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(withPathLock("/ws/a")(Effect.andThen(
        Effect.sync(() => log.push("first in")),
        Effect.andThen(Deferred.await(release), Effect.sync(() => log.push("first out")))
      )))
      yield* Effect.yieldNow
      const second = yield* Effect.forkChild(withPathLock("/ws/a")(Effect.sync(() => log.push("second"))))
      yield* withPathLock("/ws/b")(Effect.sync(() => log.push("other path")))
      yield* Effect.yieldNow
      expect(log).toEqual(["first in", "other path"])
      expect(lockedPathCount()).toBe(1)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      expect(log).toEqual(["first in", "other path", "first out", "second"])
      expect(lockedPathCount()).toBe(0)
    }))

  it.effect("takes several paths in one order and a duplicate once: crossed pairs do not deadlock", () =>
    Effect.gen(function*() {
      let done = 0
      const work = Effect.andThen(Effect.yieldNow, Effect.sync(() => done++))
      const all = yield* Effect.forkChild(Effect.all([
        withPathLocks(["/ws/x", "/ws/y"])(work),
        withPathLocks(["/ws/y", "/ws/x"])(work),
        withPathLocks(["/ws/x", "/ws/x"])(work),
        withPathLocks(["/ws/y", "/ws/x", "/ws/y"])(work)
      ], { concurrency: "unbounded" }))
      // no clock reaches them: a deadlock is a join that has not ended after 5 s of real time
      yield* joinUnmoved(all, 5_000)
      expect(done).toBe(4)
      expect(lockedPathCount()).toBe(0)
    }), { timeout: 10_000 })

  it.effect("a failed, a dying and an interrupted call (holding or waiting) give their places back", () =>
    Effect.gen(function*() {
      const failed = yield* Effect.result(withPathLock("/ws/f")(Effect.fail("no")))
      expect(failed._tag).toBe("Failure")
      const died = yield* Effect.exit(withPathLock("/ws/f")(Effect.die("boom")))
      expect(died._tag).toBe("Failure")
      expect(lockedPathCount()).toBe(0)
      const holder = yield* Effect.forkChild(withPathLock("/ws/i")(Effect.never))
      yield* Effect.yieldNow
      const waiter = yield* Effect.forkChild(withPathLock("/ws/i")(Effect.void))
      yield* Effect.yieldNow
      expect(lockedPathCount()).toBe(1)
      yield* Fiber.interrupt(waiter)
      yield* Fiber.interrupt(holder)
      expect(lockedPathCount()).toBe(0)
      // the path is free again
      yield* withPathLock("/ws/i")(Effect.void)
      expect(lockedPathCount()).toBe(0)
    }))

  it.effect("the first holder leaving does not drop the lock the next one holds: a third still waits", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const releaseA = yield* Deferred.make<void>()
      const releaseB = yield* Deferred.make<void>()
      const bHolds = yield* Deferred.make<void>()
      const a = yield* Effect.forkChild(withPathLock("/ws/q")(Deferred.await(releaseA)))
      yield* Effect.yieldNow
      const b = yield* Effect.forkChild(withPathLock("/ws/q")(
        Effect.andThen(Effect.sync(() => log.push("b")), Effect.andThen(Deferred.succeed(bHolds, undefined), Deferred.await(releaseB)))
      ))
      yield* Effect.yieldNow
      expect(log).toEqual([])
      yield* Deferred.succeed(releaseA, undefined)
      yield* Fiber.join(a)
      yield* Deferred.await(bHolds)
      expect(log).toEqual(["b"])
      const c = yield* Effect.forkChild(withPathLock("/ws/q")(Effect.sync(() => log.push("c"))))
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      expect(log).toEqual(["b"])
      yield* Deferred.succeed(releaseB, undefined)
      yield* Fiber.join(b)
      yield* Fiber.join(c)
      expect(log).toEqual(["b", "c"])
      expect(lockedPathCount()).toBe(0)
    }))

  it.effect("paths are taken in sorted order: two crossed calls queued behind a holder do not deadlock", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(withPathLock("/ws/m")(Deferred.await(release)))
      // each fork has its turn before the next: the holder holds /ws/m, then the two queue in order
      yield* Effect.yieldNow
      // first in line for /ws/m; unsorted, the second would hold /ws/n while waiting for /ws/m
      const first = yield* Effect.forkChild(withPathLocks(["/ws/m", "/ws/n"])(Effect.void))
      yield* Effect.yieldNow
      const second = yield* Effect.forkChild(withPathLocks(["/ws/n", "/ws/m"])(Effect.void))
      yield* Effect.yieldNow
      expect([first.pollUnsafe(), second.pollUnsafe()]).toEqual([undefined, undefined])
      yield* Deferred.succeed(release, undefined)
      // no clock reaches them: a deadlock is a join that has not ended after 3 s of real time
      yield* joinUnmoved(yield* Effect.forkChild(Fiber.joinAll([first, second])), 3_000)
      yield* Fiber.join(holder)
      expect(lockedPathCount()).toBe(0)
    }), { timeout: 10_000 })
})
