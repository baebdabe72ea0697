/**
 * The in-memory registry: a map of names to versions, with the latest version (and each
 * requested range) cached until the next change.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import * as Result from "effect/Result"
import maxSatisfying from "semver/ranges/max-satisfying.js"
import rsort from "semver/functions/rsort.js"
import type { AgentMode } from "../domain/AgentMode.js"
import { InvalidToolDefinition, ToolNotFound } from "../domain/errors.js"
import { exportSpec } from "../domain/exports.js"
import type { RegisteredTool, Tool, ToolInfo } from "../domain/Tool.js"
import type { ListOptions, ToolRegistryService } from "../services/ToolRegistry.js"
import { CurrentCallConfirmation } from "../services/CallConfirmation.js"
import { definitionProblem } from "../tools/definition.js"
import { CurrentRootOverride } from "./Workspace.js"
import { closest } from "./closest.js"
import { bindServices } from "./registeredServices.js"

/**
 * What a call's caller decides, not its tool's registration: Effect's fiber-local references
 * (clock, tracer, the current span, logging) and the library's own (a request's workspace root,
 * the call's confirmation). Effect 3 kept these in fiber refs, apart from the services a tool is
 * registered with; Effect 4 keeps both in the context, so the context captured at registration
 * is stripped of them, and the handler then sees its caller's.
 */
const callerDecides = [
  Clock.Clock,
  Tracer.Tracer,
  Tracer.ParentSpan,
  References.CurrentStackFrame,
  References.CurrentLogAnnotations,
  References.CurrentLogLevel,
  References.CurrentLogSpans,
  References.CurrentLoggers,
  References.MinimumLogLevel,
  References.LogToStderr,
  References.UnhandledLogLevel,
  References.TracerEnabled,
  References.TracerSpanAnnotations,
  References.TracerSpanLinks,
  References.TracerTimingEnabled,
  Layer.CurrentMemoMap,
  CurrentRootOverride,
  CurrentCallConfirmation
] as const

/** Whether a mode lets a tool through at all (scoped writes are checked per call by the mode gate). */
export const modeAllows = (mode: AgentMode, tool: ToolInfo): boolean =>
  !mode.readOnly || tool.spec.readOnly || (tool.scopedWrite && mode.scopedWriteDirs.length > 0)

const pick = (versions: Map<string, RegisteredTool>, range: string | undefined): RegisteredTool | undefined => {
  // the latest of one version is that version (deprecated or prerelease): no semver work, which
  // is most of what listing 52 tools costs at start-up
  if (range === undefined && versions.size === 1) return versions.values().next().value
  const all = [...versions.keys()]
  const live = all.filter((v) => versions.get(v)?.deprecated === undefined)
  // the latest: a stable version when there is one, else a prerelease ("*" takes none of those)
  const latest = (candidates: Array<string>) =>
    maxSatisfying(candidates, range ?? "*") ??
      (range === undefined ? maxSatisfying(candidates, "*", { includePrerelease: true }) : null)
  const best = latest(live) ?? latest(all)
  return best === null ? undefined : versions.get(best)
}

/** Builds an empty registry. */
export const makeRegistry = (): ToolRegistryService => {
  const tools = new Map<string, Map<string, RegisteredTool>>()
  const cache = new Map<string, Result.Result<RegisteredTool, ToolNotFound>>()

  const lookup = (name: string, versionRange?: string): Result.Result<RegisteredTool, ToolNotFound> => {
    const key = versionRange === undefined ? name : `${name}@${versionRange}`
    const cached = cache.get(key)
    if (cached !== undefined) return cached
    const versions = tools.get(name)
    const found = versions === undefined ? undefined : pick(versions, versionRange)
    const result = found !== undefined
      ? Result.succeed(found)
      : Result.fail(
        new ToolNotFound({
          name,
          versionRange,
          suggestions: versions === undefined ? closest(name, [...tools.keys()]) : []
        })
      )
    if (Result.isSuccess(result)) cache.set(key, result)
    return result
  }

  const latest = (options: ListOptions | undefined): ReadonlyArray<RegisteredTool> => {
    const out: Array<RegisteredTool> = []
    for (const versions of tools.values()) {
      const tool = pick(versions, undefined)
      if (tool === undefined) continue
      if (tool.deprecated !== undefined && options?.includeDeprecated !== true) continue
      if (options?.tags !== undefined && options.tags.length > 0 && !tool.tags.some((t) => options.tags?.includes(t))) {
        continue
      }
      if (options?.mode !== undefined && !modeAllows(options.mode, tool)) continue
      out.push(tool)
    }
    // a plain comparison: `localeCompare` sets up ICU collation on first use (tens of ms)
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  const register = <R>(tool: Tool<R>): Effect.Effect<void, InvalidToolDefinition, R> =>
    Effect.flatMap(Effect.context<R>(), (context) => {
      const problem = definitionProblem(tool)
      if (problem !== undefined) return Effect.fail(new InvalidToolDefinition({ name: tool.name, reason: problem }))
      const versions = tools.get(tool.name) ?? new Map<string, RegisteredTool>()
      if (versions.has(tool.version)) {
        return Effect.fail(
          new InvalidToolDefinition({ name: tool.name, reason: `version ${tool.version} is already registered` })
        )
      }
      // the tool's services, captured here, are provided to each call's handler
      // (as a `Context<R>` again: a tool that needs the current span gets its caller's)
      const bind = bindServices(Context.makeUnsafe<R>(Context.omit(...callerDecides)(context).mapUnsafe))
      const stored: RegisteredTool = {
        ...tool,
        prepare: (input) =>
          Result.map(tool.prepare(input), (call) => ({
            args: call.args,
            paths: call.paths,
            run: bind(call.run)
          }))
      }
      versions.set(tool.version, stored)
      tools.set(tool.name, versions)
      cache.clear()
      return Effect.void
    })

  return {
    register,
    unregister: (name, version) =>
      Effect.sync(() => {
        if (version === undefined) tools.delete(name)
        else tools.get(name)?.delete(version)
        if (tools.get(name)?.size === 0) tools.delete(name)
        cache.clear()
      }),
    get: (name, versionRange) => Effect.suspend(() => Effect.fromResult(lookup(name, versionRange))),
    lookup,
    list: (options) => Effect.sync(() => latest(options)),
    versions: (name) => Effect.sync(() => rsort([...(tools.get(name)?.keys() ?? [])])),
    deprecate: (name, version, reason) =>
      Effect.suspend(() => {
        const tool = tools.get(name)?.get(version)
        if (tool === undefined) {
          return Effect.fail(new ToolNotFound({ name, versionRange: version, suggestions: [] }))
        }
        tools.get(name)?.set(version, { ...tool, deprecated: reason })
        cache.clear()
        return Effect.void
      }),
    specs: (options) => Effect.sync(() => latest(options).map((t) => t.spec)),
    export: (format, options) => Effect.sync(() => latest(options).map((t) => exportSpec(t.spec, format)))
  }
}
