/**
 * Importing the library does not load node-redis: `RateLimiter.layerRedis` loads it (through
 * `src/layers/RateLimiterRedis.ts`, imported lazily) when its layer is built. `redis` and
 * `@redis/client` are CommonJS, so once loaded they sit in Node's module cache.
 */
import { describe, expect, it } from "@effect/vitest"
import { createRequire } from "node:module"

const loadedRedis = () =>
  Object.keys(createRequire(import.meta.url).cache).filter((file) =>
    file.includes("/node_modules/redis/") || file.includes("/node_modules/@redis/")
  )

describe("RateLimiter.layerRedis loading", () => {
  it("importing the library leaves redis unloaded; building the Redis module loads it", async () => {
    const library = await import("../../src/index.js")
    expect(typeof library.RateLimiter.layerRedis).toBe("function")
    expect(loadedRedis()).toEqual([])

    // the check sees redis once it is loaded
    await import("../../src/layers/RateLimiterRedis.js")
    expect(loadedRedis().length).toBeGreaterThan(0)
  })
})
