/**
 * The proxies of the bridged servers over time, and the rug-pull hold.
 *
 * A tool is trusted as it was first seen (its definition: description, input schema,
 * `readOnlyHint`). Each later listing of its server (after `list_changed`, after a restart)
 * is compared with that:
 * - a tool not seen before is registered, as at the start;
 * - a tool the server no longer lists is unregistered (every version): it cannot be called;
 * - a tool whose definition changed is held: the new definition is registered as the next
 *   major version, deprecated while it waits (so listings and lookups keep showing the
 *   approved one), and every call of the tool, any version, ends with `MCP_TOOL_CHANGED`
 *   without reaching the server, until the application approves the new version (or the
 *   server goes back to the approved definition). Approving makes the new version the one
 *   that runs; the old one stays registered, deprecated, and refused.
 *
 * A tool removed and listed again is compared with what was approved before, so a removal
 * does not reset the trust.
 *
 * Effect 4: a proxy is registered with `Effect.updateContext` to an empty context (Effect 3:
 * `mapInputContext`), so the registry captures no services for it and its calls run with the caller's.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import inc from "semver/functions/inc.js"
import { InvalidToolDefinition, McpToolChanged } from "../../domain/errors.js"
import type { Tool } from "../../domain/Tool.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import {
  changedParts,
  McpNotPending,
  type McpToolChange,
  type McpToolDefinition,
  McpToolEvent,
  sameDefinition
} from "./changes.js"
import type { McpTool } from "./connection.js"
import { takeListing, yieldToEventLoop } from "./listingLimits.js"
import { proxyName, type ProxyTarget } from "./names.js"
import { definitionOf, makeProxy, PROXY_VERSION } from "./proxy.js"
import type { ServerHandle } from "./serverHandle.js"

/** One definition of a tool, under a version. */
interface Version {
  readonly version: string
  readonly tool: McpTool
  readonly definition: McpToolDefinition
}

/** A server tool over the bridge's life. */
interface Entry {
  readonly name: string
  readonly handle: ServerHandle
  readonly tool: string
  /** The definition calls run under: the first seen, or the last approved. */
  approved: Version
  /** A change waiting for approval. */
  pending: Version | undefined
  /** The version whose definition the server lists now (`undefined`: it does not list the tool). */
  listed: string | undefined
  /** The versions in the registry. */
  readonly registered: Set<string>
  /** The highest version given out. */
  top: string
}

/** The proxies of every server, their holds and their events. */
export interface Catalog {
  /** Takes a listing of `handle`'s tools: the first one, and every later one. */
  readonly apply: (handle: ServerHandle, tools: ReadonlyArray<McpTool>) => Effect.Effect<void>
  /** Every registered proxy's name and where it leads (live: it follows the servers' changes). */
  readonly proxies: ReadonlyMap<string, ProxyTarget>
  readonly pending: Effect.Effect<ReadonlyArray<McpToolChange>>
  readonly approve: (
    name: string,
    version?: string
  ) => Effect.Effect<McpToolChange, McpNotPending | InvalidToolDefinition>
  readonly events: Stream.Stream<McpToolEvent>
}

const changeOf = (entry: Entry, pending: Version): McpToolChange => ({
  name: entry.name,
  server: entry.handle.name,
  tool: entry.tool,
  previousVersion: entry.approved.version,
  version: pending.version,
  changed: changedParts(entry.approved.definition, pending.definition),
  before: entry.approved.definition,
  after: pending.definition
})

/** Why a call of `version` is refused, in a few words. */
const holdReason = (entry: Entry, version: string): string => {
  const pending = entry.pending
  if (pending !== undefined) {
    const parts = changedParts(entry.approved.definition, pending.definition).join(", ")
    return version === pending.version
      ? `version ${version} (${parts} changed) has not been approved`
      : `${parts} changed; version ${pending.version} waits for approval`
  }
  if (version !== entry.approved.version) return `version ${version} was replaced by the approved ${entry.approved.version}`
  return "the server no longer lists this definition"
}

/** Makes the catalog; its event stream ends when the scope closes. */
export const makeCatalog = (
  options: { readonly maxOutputChars: number }
): Effect.Effect<Catalog, never, ToolRegistry | Scope.Scope> =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    const hub = yield* Effect.acquireRelease(PubSub.unbounded<McpToolEvent>(), PubSub.shutdown)
    const lock = yield* Semaphore.make(1)
    const entries = new Map<string, Entry>()
    const proxies = new Map<string, ProxyTarget>()
    const publish = (event: McpToolEvent) => PubSub.publish(hub, event)

    yield* Effect.addFinalizer(() =>
      Effect.forEach(entries.values(), (entry) => registry.unregister(entry.name), { discard: true })
    )

    /** Passes a call of `version` only when it is the approved definition and the one listed now. */
    const admit = (entry: Entry, version: string) => (): McpToolChanged | undefined =>
      entry.approved.version === version && entry.listed === version
        ? undefined
        : new McpToolChanged({ server: entry.handle.name, tool: entry.tool, changed: holdReason(entry, version) })

    const proxyOf = (entry: Entry, at: Version): Result.Result<Tool, InvalidToolDefinition> =>
      Result.try({
        try: () =>
          makeProxy(entry.handle, at.tool, {
            maxOutputChars: options.maxOutputChars,
            version: at.version,
            admit: admit(entry, at.version)
          }),
        catch: (error) =>
          error instanceof InvalidToolDefinition ? error : new InvalidToolDefinition({ name: entry.name, reason: String(error) })
      })

    /** Registers `at` (deprecated with `held` while it waits); a failure is returned, not raised. */
    const register = (entry: Entry, at: Version, held: string | undefined) =>
      Effect.gen(function*() {
        const proxy = proxyOf(entry, at)
        if (Result.isFailure(proxy)) return Result.fail(proxy.failure)
        // registered without services (a proxy needs none): its calls run on the caller's fiber
        const registered = yield* Effect.result(
          registry.register({ ...proxy.success, deprecated: held }).pipe(Effect.updateContext((_: Context.Context<never>) => Context.empty()))
        )
        if (Result.isSuccess(registered)) {
          entry.registered.add(at.version)
          proxies.set(entry.name, { server: entry.handle.name, tool: entry.tool })
        }
        return registered
      })

    const unregister = (entry: Entry, version: string) =>
      Effect.suspend(() => {
        if (!entry.registered.delete(version)) return Effect.void
        if (entry.registered.size === 0) proxies.delete(entry.name)
        return registry.unregister(entry.name, version)
      })

    const warn = (entry: Entry, what: string) =>
      Effect.logWarning(`MCP server "${entry.handle.name}": tool "${entry.tool}" ${what}`)

    /** The first sighting of a tool: trusted as it is. */
    const first = (handle: ServerHandle, tool: McpTool, name: string) =>
      Effect.gen(function*() {
        const at: Version = { version: PROXY_VERSION, tool, definition: definitionOf(handle.name, tool) }
        const entry: Entry = {
          name,
          handle,
          tool: tool.name,
          approved: at,
          pending: undefined,
          listed: at.version,
          registered: new Set(),
          top: at.version
        }
        const registered = yield* register(entry, at, undefined)
        if (Result.isFailure(registered)) return yield* warn(entry, `skipped: ${registered.failure.reason}`)
        entries.set(name, entry)
        yield* publish(McpToolEvent.ToolAdded({ name, server: handle.name, tool: tool.name, version: at.version }))
      })

    /** A later listing of a known tool. */
    const again = (entry: Entry, tool: McpTool) =>
      Effect.gen(function*() {
        const definition = definitionOf(entry.handle.name, tool)
        const pending = entry.pending
        if (sameDefinition(definition, entry.approved.definition)) {
          entry.listed = entry.approved.version
          if (pending !== undefined) {
            entry.pending = undefined
            yield* unregister(entry, pending.version)
            yield* warn(entry, `is listed as approved again: version ${pending.version} is dropped`)
            yield* publish(McpToolEvent.ToolRestored({
              name: entry.name,
              server: entry.handle.name,
              tool: entry.tool,
              version: entry.approved.version
            }))
          }
          if (!entry.registered.has(entry.approved.version)) {
            // listed again after a removal, as it was approved
            const registered = yield* register(entry, { ...entry.approved, tool }, undefined)
            if (Result.isFailure(registered)) return yield* warn(entry, `skipped: ${registered.failure.reason}`)
            yield* publish(McpToolEvent.ToolAdded({
              name: entry.name,
              server: entry.handle.name,
              tool: entry.tool,
              version: entry.approved.version
            }))
          }
          return
        }
        if (pending !== undefined && sameDefinition(definition, pending.definition)) {
          entry.listed = pending.version
          return
        }
        // a change: held until approved
        if (pending !== undefined) yield* unregister(entry, pending.version)
        const version = inc(entry.top, "major") ?? entry.top
        const next: Version = { version, tool, definition }
        entry.top = version
        entry.pending = next
        entry.listed = version
        const change = changeOf(entry, next)
        const held = `held: the MCP server changed this tool (${change.changed.join(", ")}) after it was first seen; ` +
          `waits for approval`
        const registered = yield* register(entry, next, held)
        if (Result.isFailure(registered)) yield* warn(entry, `version ${version} cannot be registered: ${registered.failure.reason}`)
        yield* warn(
          entry,
          `changed (${change.changed.join(", ")}) after it was first seen: its calls are held until version ${version} is approved`
        )
        yield* publish(McpToolEvent.ToolHeld({ change }))
      })

    const removed = (entry: Entry) =>
      Effect.gen(function*() {
        entry.listed = undefined
        entry.pending = undefined
        if (entry.registered.size === 0) return
        for (const version of [...entry.registered]) yield* unregister(entry, version)
        yield* warn(entry, "is no longer listed: its proxy is unregistered")
        yield* publish(McpToolEvent.ToolRemoved({ name: entry.name, server: entry.handle.name, tool: entry.tool }))
      })

    const apply: Catalog["apply"] = (handle, tools) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const seen = new Set<string>()
        for (const tool of yield* takeListing(handle.name, tools)) {
          const name = proxyName(handle.name, tool.name)
          const entry = entries.get(name)
          if (seen.has(name) || (entry !== undefined && entry.handle !== handle)) {
            yield* Effect.logWarning(`MCP server "${handle.name}": tool "${tool.name}" skipped: the name "${name}" is taken`)
            continue
          }
          seen.add(name)
          yield* yieldToEventLoop
          if (entry === undefined) yield* first(handle, tool, name)
          else yield* again(entry, tool)
        }
        for (const entry of entries.values()) {
          if (entry.handle === handle && !seen.has(entry.name)) yield* removed(entry)
        }
      }))

    const pending = Effect.sync(() => {
      const out: Array<McpToolChange> = []
      for (const entry of entries.values()) if (entry.pending !== undefined) out.push(changeOf(entry, entry.pending))
      return out
    })

    const approve: Catalog["approve"] = (name, version) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const entry = entries.get(name)
        const held = entry?.pending
        if (entry === undefined || held === undefined || (version !== undefined && version !== held.version)) {
          return yield* new McpNotPending({ name, version, pending: held?.version })
        }
        const change = changeOf(entry, held)
        const previous = entry.approved
        yield* unregister(entry, held.version)
        entry.approved = held
        entry.pending = undefined
        const registered = yield* register(entry, held, undefined)
        if (Result.isFailure(registered)) {
          entry.approved = previous
          entry.pending = held
          return yield* registered.failure
        }
        if (entry.registered.has(previous.version)) {
          yield* registry.deprecate(name, previous.version, `replaced by ${held.version}: its MCP server changed it`).pipe(
            Effect.catch((error) => warn(entry, `version ${previous.version} could not be deprecated: ${error.message}`))
          )
        }
        yield* Effect.logInfo(`MCP tool "${name}": version ${held.version} approved`)
        yield* publish(McpToolEvent.ToolApproved({ change }))
        return change
      }))

    return { apply, proxies, pending, approve, events: Stream.fromPubSub(hub) }
  })
