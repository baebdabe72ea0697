/**
 * Importing the library does not load ioredis: `RateLimiter.layerRedis` loads it (through
 * `src/layers/RateLimiterRedis.ts`) when its layer is built. ioredis is CommonJS, so once
 * loaded it sits in Node's module cache.
 */
import { describe, expect, it } from "@effect/vitest"
import { createRequire } from "node:module"

const loadedIoredis = () =>
  Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes("/node_modules/ioredis/"))

describe("RateLimiter.layerRedis loading", () => {
  it("importing the library leaves ioredis unloaded; building the Redis module loads it", async () => {
    const library = await import("../../src/index.js")
    expect(typeof library.RateLimiter.layerRedis).toBe("function")
    expect(loadedIoredis()).toEqual([])

    // the check sees ioredis once it is loaded
    await import("../../src/layers/RateLimiterRedis.js")
    expect(loadedIoredis().length).toBeGreaterThan(0)
  })
})
