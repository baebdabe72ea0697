/**
 * What the commands share: their options, the tool system they run against, the parsing of
 * a call's JSON arguments, and how a command ends with an exit code.
 *
 * @since 0.2.0
 */
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as AgentMode from "../domain/AgentMode.js"
import type { AuditLog } from "../services/AuditLog.js"
import type { ToolRegistry } from "../services/ToolRegistry.js"
import { type GraphOptions, ToolSystem } from "../services/ToolSystem.js"
import { Workspace } from "../services/Workspace.js"
import { builtinTools } from "../tools/builtin/index.js"
import { CommandExitCode } from "./exitCode.js"
import { ExitCode } from "./run.js"

/** Ends a command with an exit code (what `runCommandLine` gives back). */
export const exitWith = <E, R>(effect: Effect.Effect<number, E, R>): Effect.Effect<void, E, R | CommandExitCode> =>
  Effect.flatMap(effect, (code) => CommandExitCode.use((exitCode) => Ref.set(exitCode, code)))

/** A flag that is there or not (`--yes`), with no `--no-` form: none of the command line's options has one. */
export const switchFlag = (name: string): Flag.Flag<boolean> =>
  Flag.Boolean(name).pipe(Flag.withoutNegation, Flag.withDefault(false))

export const modeOption = Flag.Literals("mode", AgentMode.builtins.map((m) => m.name)).pipe(
  Flag.withDescription("Agent mode: default, explore (read-only) or plan (read-only, writes under plans/)"),
  Flag.optional
)

export const tagOption = Flag.String("tag").pipe(Flag.withDescription("Only tools with this tag"), Flag.optional)

export const workspaceOption = Flag.Directory("workspace").pipe(
  Flag.withDescription("The workspace root"),
  Flag.optional
)

export const toolVersionOption = Flag.String("tool-version").pipe(
  Flag.withDescription("A semver range of the tool's version (`--version RANGE` also works after the command)"),
  Flag.optional
)

export const jsonOption = switchFlag("json").pipe(Flag.withDescription("Print JSON"))

export const mcpConfigOption = Flag.File("mcp-config", { mustExist: true }).pipe(
  Flag.withDescription("An MCP configuration ({ \"mcpServers\": {...} }): its stdio servers' tools are bridged in"),
  Flag.optional
)

/** The agent mode of a `--mode` value. */
export const modeOf = (name: Option.Option<string>) =>
  Option.flatMap(name, AgentMode.fromName).pipe(Option.getOrUndefined)

/** What the tool system of a command is built with. */
export interface SystemOptions {
  readonly workspace?: Option.Option<string>
  readonly mcpConfig?: Option.Option<string>
  /** The audit log of the calls (`--audit FILE`). */
  readonly audit?: Layer.Layer<AuditLog, never, FileSystem.FileSystem | Path.Path> | undefined
  /**
   * The one tool the command is about (`call`, `explain`, `describe`). When it is a builtin,
   * the 46 ported tools are not loaded: a fifth of the command's start-up (`bench/startup.ts`).
   */
  readonly tool?: string
}

/** Whether a command about `tool` needs no ported tool: it names a builtin. */
const builtinOnly = (tool: string | undefined): boolean => builtinTools.some((t) => t.name === tool)

/** The MCP servers of a configuration file (the MCP code is loaded only when one is given). */
const mcpServersOf = (file: Option.Option<string>) =>
  Option.match(file, {
    onNone: () => Effect.succeed(undefined),
    onSome: (path) =>
      Effect.flatMap(Effect.promise(() => import("../tools/mcp/config.js")), (config) => config.loadMcpConfig(path))
  })

/**
 * The tool system of a command: its workspace, MCP servers and audit log; no ported tools for
 * a builtin's command.
 */
export const graphOf = (
  options: SystemOptions,
  mcpServers?: GraphOptions<readonly []>["mcpServers"]
): GraphOptions<readonly []> => ({
  ...Option.match(options.workspace ?? Option.none(), {
    onNone: () => ({}),
    onSome: (root) => ({ workspace: Workspace.layerFixed(root) })
  }),
  ...(mcpServers === undefined ? {} : { mcpServers }),
  ...(options.audit === undefined ? {} : { audit: options.audit }),
  ...(builtinOnly(options.tool) ? { ported: false } : {})
})

/** Runs a command against Node's tool system and ends with the exit code it returns. */
export const withSystem = <E>(
  effect: Effect.Effect<number, E, ToolSystem | ToolRegistry | FileSystem.FileSystem>,
  options: SystemOptions = {}
) =>
  exitWith(Effect.flatMap(
    mcpServersOf(options.mcpConfig ?? Option.none()),
    (mcpServers) => Effect.provide(effect, ToolSystem.layerNode(graphOf(options, mcpServers)))
  ))

export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

export const pad = (text: string, width: number) =>
  text.length >= width ? text.slice(0, width) : text + " ".repeat(width - text.length)

/**
 * A call's arguments from their JSON text: an object, or the usage error (printed on stderr)
 * as the exit code.
 */
export const parseArguments = (text: string): Effect.Effect<Result.Result<object, number>> => {
  const parsed = Result.try({
    try: (): unknown => JSON.parse(text),
    catch: (error) => (error instanceof Error ? error.message : String(error))
  })
  if (Result.isFailure(parsed)) {
    return Effect.as(Console.error(`Invalid JSON arguments: ${parsed.failure}`), Result.fail(ExitCode.usage))
  }
  const value = parsed.success
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Effect.as(Console.error("The arguments must be a JSON object"), Result.fail(ExitCode.usage))
  }
  return Effect.succeed(Result.succeed(value))
}
