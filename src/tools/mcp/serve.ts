/**
 * Serving the registry on one MCP transport (stdio, or any other `Transport`) until it closes:
 * `serveMcp`. The transport's first message pins the connection's era (`initialize`:
 * 2025-11-25; a request with the 2026-07-28 envelope: stateless requests); each server the
 * factory makes (server.ts) is told of a bridged server's changed tools
 * (`notifications/tools/list_changed`) while it lives.
 *
 * Effect 4: the close waits on a `Latch`; the serving entry's handle is released with the scope.
 *
 * @since 1.0.0
 */
import type { Server, Transport } from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import * as Effect from "effect/Effect"
import * as Latch from "effect/Latch"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { McpBridge } from "../../services/McpBridge.js"
import type { ToolRegistry } from "../../services/ToolRegistry.js"
import type { ToolSystem } from "../../services/ToolSystem.js"
import { makeMcpServerFactory, McpServeError, type McpServeOptions } from "./server.js"

/**
 * `transport` as the SDK's serving entry sees it, with its start, its close and its failures
 * watched: `closed` runs when it closes, `closeFailure` keeps why its close failed.
 */
const watched = (transport: Transport, closed: () => void) => {
  let started: Promise<void> | undefined
  let closeFailure: unknown = undefined
  const wire: Transport = {
    start: () => (started ??= transport.start()),
    send: (message, options) => transport.send(message, options),
    close: () =>
      transport.close().catch((error: unknown) => {
        closeFailure = error
        throw error
      }),
    ...(transport.setProtocolVersion === undefined
      ? {}
      : { setProtocolVersion: (version: string) => transport.setProtocolVersion?.(version) })
  }
  transport.onmessage = (message, extra) => wire.onmessage?.(message, extra)
  transport.onerror = (error) => wire.onerror?.(error)
  transport.onclose = () => {
    closed()
    wire.onclose?.()
  }
  return { wire, started: () => started ?? Promise.resolve(), closeFailure: () => closeFailure }
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * Serves the registry on `transport` until the transport closes (or the fiber is
 * interrupted, which closes it). Both eras: the first message pins the connection's era
 * (`initialize`: 2025-11-25; a request with the 2026-07-28 envelope: stateless requests).
 *
 * @since 0.1.0
 * @category running
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from "@modelcontextprotocol/server/stdio"
 * import { Effect } from "effect"
 * import { AgentMode, ToolSystem } from "effect-tool-system"
 * import { serveMcp } from "effect-tool-system/mcp"
 *
 * const main = () =>
 *   Effect.runPromise(serveMcp(new StdioServerTransport(), { mode: AgentMode.Explore }).pipe(
 *     Effect.provide(ToolSystem.layerNode())
 *   ))
 * ```
 */
export const serveMcp = (
  transport: Transport,
  options: McpServeOptions = {}
): Effect.Effect<void, McpServeError, ToolSystem | ToolRegistry> =>
  Effect.scoped(Effect.gen(function*() {
    const live = new Set<Server>()
    const factory = yield* makeMcpServerFactory(options, {
      made: (server) => {
        live.add(server)
        server.onclose = () => live.delete(server)
      }
    })
    const closed = yield* Latch.make(false)
    const context = yield* Effect.context<never>()
    const watch = watched(transport, () => closed.openUnsafe())
    const handle = yield* Effect.acquireRelease(
      Effect.sync(() =>
        serveStdio(factory, {
          legacy: "serve",
          transport: watch.wire,
          onerror: (error) => Effect.runForkWith(context)(Effect.logDebug(`MCP serving: ${error.message}`))
        })
      ),
      (handle) =>
        Effect.promise(() => handle.close()).pipe(
          Effect.andThen(Effect.suspend(() => {
            const failure = watch.closeFailure()
            return failure === undefined
              ? Effect.void
              : Effect.logWarning(`Closing the MCP server failed: ${reasonOf(failure)}`)
          }))
        )
    )
    yield* Effect.tryPromise({
      try: () => watch.started(),
      catch: (error) => new McpServeError({ reason: reasonOf(error) })
    })
    const bridge = yield* Effect.serviceOption(McpBridge)
    if (Option.isSome(bridge)) {
      yield* bridge.value.events.pipe(
        Stream.runForEach(() =>
          Effect.forEach(
            [...live],
            (server) =>
              Effect.tryPromise(() => server.sendToolListChanged()).pipe(
                Effect.catch((error) =>
                  Effect.logWarning(`Telling the MCP client of changed tools failed: ${String(error.cause)}`)
                )
              ),
            { discard: true }
          )
        ),
        Effect.forkScoped
      )
    }
    void handle
    yield* closed.await
  }))
