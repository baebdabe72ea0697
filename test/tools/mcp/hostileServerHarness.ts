/**
 * What `hostileServer.test.ts` and `hostileServer.slow.test.ts` share: the bridge's options
 * without restarts, a server of `hostile.mjs` flooding the bridge until it is stopped, and one
 * call that makes it burst, with the host's memory and event loop measured.
 */
import { Effect, Exit, Scope } from "effect"
import type { McpBridgeOptions } from "../../../src/services/McpBridge.js"
import { measureBlocking, MAX_BLOCK_MS } from "../../helpers/loopDelay.js"
import { recordingLogsWith, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { alive, eventually, fast, nodeServer, openBridged } from "./helpers.js"

/** No restart: the hostile server's tool must answer at once, from its stop. */
export const noRestart: McpBridgeOptions = { ...fast, maxRestarts: 0 }

/** The heap and the buffers outside it, in bytes. */
const memory = () => {
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.external + usage.arrayBuffers
}

/** How much more memory than at its start the host may use while a server floods it. */
export const MEMORY_MARGIN = 96 * 1024 * 1024

/**
 * Brings up the server `hostile.mjs <mode>` in a bridge, waits (up to 3 s) until the bridge
 * no longer counts it as up while sampling the host's memory, then calls its tool. Gives the
 * call's result, the logs, the highest memory seen over the start's, and the longest block of
 * the event loop while the flood came in.
 */
export const flooded = (mode: string, options: McpBridgeOptions = noRestart) =>
  Effect.gen(function*() {
    const ws = yield* tempDir(`mcp-hostile-${mode}-`)
    global.gc?.()
    const start = memory()
    let highest = start
    const [result, logs] = yield* recordingLogsWith(() =>
      Effect.gen(function*() {
        const { bridge, scope, system } = yield* openBridged(ws, {
          hostile: nodeServer("hostile.mjs", [mode], { callTimeoutMs: 2000, requiresConfirmation: false })
        }, options)
        const pid = (yield* bridge.servers)[0]?.pid ?? 0
        // the event loop is watched while the flood comes in, until the server is stopped
        const { maxBlockMs, value: state } = yield* Effect.promise(() =>
          measureBlocking(() =>
            Effect.runPromise(Effect.gen(function*() {
              const end = Date.now() + 3000
              let state = "up"
              while (state === "up" && Date.now() < end) {
                highest = Math.max(highest, memory())
                yield* Effect.sleep("10 millis")
                state = (yield* bridge.servers)[0]?.state ?? ""
              }
              return state
            }))
          )
        )
        const started = Date.now()
        const call = yield* system.execute("hostile__work", {})
        const callMs = Date.now() - started
        highest = Math.max(highest, memory())
        const gone = yield* eventually(() => !alive(pid), 3000)
        yield* Scope.close(scope, Exit.void)
        return { call, callMs, gone, state, maxBlockMs }
      })
    )
    return { ...result, logs: logs.map((line) => [line.level.toUpperCase(), textOf(line)] as const), growth: highest - start }
  })

/** The warning the bridge logs when it stops a server, with the reason. */
export const stopLogged = (logs: ReadonlyArray<readonly [string, string]>, reason: RegExp) =>
  logs.some(([level, text]) => level === "WARN" && text.startsWith("MCP server \"hostile\"") && reason.test(text))

/**
 * Brings up `hostile.mjs <mode>` (a burst mode: 20,000 small messages in one write, at the first
 * call of `work`, before its answer) and measures the event loop during that call. A run that
 * blocks is repeated (up to 3 runs, each with a server of its own), keeping the least blocked:
 * on a loaded machine the loop may also wait for a core, which does not repeat; a block the
 * burst causes does.
 */
export const burstCall = (mode: string, options: McpBridgeOptions) =>
  Effect.gen(function*() {
    const once = Effect.gen(function*() {
      const ws = yield* tempDir(`mcp-hostile-${mode}-`)
      const [run, logs] = yield* recordingLogsWith(() =>
        Effect.gen(function*() {
          const { scope, system } = yield* openBridged(ws, {
            hostile: nodeServer("hostile.mjs", [mode], { callTimeoutMs: 10_000, requiresConfirmation: false })
          }, options)
          const { maxBlockMs, value: call } = yield* Effect.promise(() =>
            measureBlocking(() => Effect.runPromise(system.execute("hostile__work", {})))
          )
          yield* Scope.close(scope, Exit.void)
          return { call, maxBlockMs }
        })
      )
      return { ...run, logs: logs.map((line) => [line.level.toUpperCase(), textOf(line)] as const) }
    })
    let least = yield* once
    for (let attempt = 1; attempt < 3 && least.maxBlockMs >= MAX_BLOCK_MS; attempt++) {
      const next = yield* once
      if (next.maxBlockMs < least.maxBlockMs) least = next
    }
    return least
  })
