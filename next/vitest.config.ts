/**
 * The Effect 4 tree's tests (`npm test` in `next/`), on Node 22 (the `node` of this folder's
 * `node_modules/.bin`, which npm puts first on the scripts' PATH).
 */
import { defineConfig } from "vitest/config"

/**
 * Ported tests whose subject is not ported yet (also left out of `tsconfig.json`): each goes
 * back in when its modules land.
 */
const waitingForTheirModules = [
  // needs ToolCallHandler and the MCP server and proxy
  "test/domain/toolNotFoundName.test.ts"
]

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["**/node_modules/**", ...waitingForTheirModules],
    testTimeout: 30_000
  }
})
