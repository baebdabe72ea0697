/**
 * The Effect 4 tree's tests (`npm test` in `next/`), on Node 22 (the `node` of this folder's
 * `node_modules/.bin`, which npm puts first on the scripts' PATH).
 */
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000
  }
})
