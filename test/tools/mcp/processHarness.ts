/**
 * What `process.test.ts` and `process.slow.test.ts` share: a server process started with a
 * short grace for its stop, a `node -e` script as its command, and a wait for what it did.
 */
import { Effect } from "effect"
import type { McpStdioServerConfig } from "../../../src/tools/mcp/config.js"
import { startServerProcess } from "../../../src/tools/mcp/process.js"

const GRACE = "300 millis"

export const start = (config: McpStdioServerConfig) => startServerProcess(config, { stopGrace: GRACE })

export const node = (script: string): McpStdioServerConfig => ({ command: process.execPath, args: ["-e", script] })

/** Waits until `check` holds (a few seconds at most), then gives its last answer. */
export const until = <A>(read: () => A, check: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 250 && !check(read()); i++) yield* Effect.sleep("20 millis")
    return read()
  })
