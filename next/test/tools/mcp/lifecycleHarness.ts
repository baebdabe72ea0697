/**
 * What `lifecycle.test.ts` and `lifecycle.failOpen.slow.test.ts` share: the bridged system built
 * in a scope a test closes itself.
 */
import { Context, Effect, Layer, Scope } from "effect"
import { ToolSystem } from "../../../src/index.js"
import { McpBridge } from "../../../src/services/McpBridge.js"
import { bridged, fast } from "./helpers.js"

/** Builds the bridged system in a scope of its own, so a test can close it and look. */
export const open = (ws: string, servers: Parameters<typeof bridged>[1], options = fast) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(bridged(ws, servers, options), scope)
    return { scope, system: Context.get(context, ToolSystem), bridge: Context.get(context, McpBridge) }
  })
