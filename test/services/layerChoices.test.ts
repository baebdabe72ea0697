/**
 * The services' ready-made layers beyond their defaults: `UrlPolicy.layerAllowList` lets through
 * the addresses it lists (and only those) that the default refuses, and
 * `RateLimiter.layerRedis` without the optional `redis` package dies saying which package it needs.
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import { UrlPolicy } from "../../src/services/UrlPolicy.js"

describe("UrlPolicy.layerAllowList", () => {
  it.effect("lets through a listed address and port the default refuses, and nothing else", () =>
    Effect.gen(function*() {
      const policy = yield* UrlPolicy
      expect(policy.check(new URL("http://127.0.0.1:8080/status"))).toEqual(Option.none())
      expect(Option.map(policy.check(new URL("http://127.0.0.1:8081/status")), (refused) => refused.reason))
        .toEqual(Option.some("address"))
      expect(Option.isSome(policy.check(new URL("http://10.0.0.5/")))).toBe(true)
    }).pipe(Effect.scoped, Effect.provide(UrlPolicy.layerAllowList(["127.0.0.1:8080"]))))
})

describe("RateLimiter.layerRedis without the redis package", () => {
  afterEach(() => {
    vi.doUnmock("redis")
    vi.resetModules()
  })

  it.effect("dies when built, naming the package and versions it needs, with the import's failure as the cause", () =>
    Effect.gen(function*() {
      vi.resetModules()
      vi.doMock("redis", () => {
        throw new Error("Cannot find package 'redis'")
      })
      const { RateLimiter } = yield* Effect.promise(() => import("../../src/services/RateLimiter.js"))
      const exit = yield* Effect.exit(Effect.scoped(Effect.provide(Effect.service(RateLimiter), RateLimiter.layerRedis())))
      expect(Exit.isFailure(exit)).toBe(true)
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(defect).toBeInstanceOf(Error)
      expect(defect instanceof Error && defect.message).toBe("RateLimiter.layerRedis needs the package redis (node-redis 5.1 to 6)")
      expect(defect instanceof Error && defect.cause).toBeInstanceOf(Error)
    }))
})
