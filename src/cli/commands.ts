/**
 * The command line: list, describe, call, export and docs, on `@effect/cli`.
 * A command's handler succeeds with the process exit code.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import { Cause, Console, Effect, Either, Exit, Option } from "effect"
import * as AgentMode from "../domain/AgentMode.js"
import { PathTraversalError } from "../domain/errors.js"
import { formats } from "../domain/exports.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import { ToolSystem } from "../services/ToolSystem.js"
import { Workspace } from "../services/Workspace.js"
import { renderToolTable, replaceBetweenMarkers } from "./docs.js"
import { ExitCode } from "./run.js"

/** Ends a command with an exit code (read by `main`'s teardown). */
const exitWith = <E, R>(effect: Effect.Effect<number, E, R>): Effect.Effect<void, E, R> =>
  Effect.flatMap(effect, (code) =>
    Effect.sync(() => {
      process.exitCode = code
    }))

const modeOption = Options.choice("mode", AgentMode.builtins.map((m) => m.name)).pipe(
  Options.withDescription("Agent mode: default, explore (read-only) or plan (read-only, writes under plans/)"),
  Options.optional
)
const tagOption = Options.text("tag").pipe(Options.withDescription("Only tools with this tag"), Options.optional)

const modeOf = (name: Option.Option<string>) => Option.flatMap(name, AgentMode.fromName).pipe(Option.getOrUndefined)

const mcpConfigOption = Options.file("mcp-config", { exists: "yes" }).pipe(
  Options.withDescription("An MCP configuration ({ \"mcpServers\": {...} }): its stdio servers' tools are bridged in"),
  Options.optional
)

/** The MCP servers of a configuration file (the MCP code is loaded only when one is given). */
const mcpServersOf = (file: Option.Option<string>) =>
  Option.match(file, {
    onNone: () => Effect.succeed(undefined),
    onSome: (path) =>
      Effect.flatMap(Effect.promise(() => import("../tools/mcp/config.js")), (config) => config.loadMcpConfig(path))
  })

const withSystem = <E>(
  effect: Effect.Effect<number, E, ToolSystem | ToolRegistry | FileSystem.FileSystem>,
  workspace: Option.Option<string> = Option.none(),
  mcpConfig: Option.Option<string> = Option.none()
) =>
  exitWith(Effect.flatMap(mcpServersOf(mcpConfig), (mcpServers) =>
    Effect.provide(
      effect,
      ToolSystem.layerNode({
        ...Option.match(workspace, { onNone: () => ({}), onSome: (root) => ({ workspace: Workspace.layerFixed(root) }) }),
        ...(mcpServers === undefined ? {} : { mcpServers })
      })
    )))

const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

const pad = (text: string, width: number) => text.length >= width ? text.slice(0, width) : text + " ".repeat(width - text.length)

const list = Command.make(
  "list",
  {
    tag: tagOption,
    mode: modeOption,
    json: Options.boolean("json").pipe(Options.withDescription("Print JSON")),
    mcpConfig: mcpConfigOption
  },
  ({ json, mcpConfig, mode, tag }) =>
    withSystem(Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const tools = yield* registry.list({ tags: Option.toArray(tag), mode: modeOf(mode) })
      if (json) {
        yield* printJson(tools.map((t) => ({
          name: t.name,
          version: t.version,
          description: t.spec.description,
          readOnly: t.spec.readOnly,
          requiresConfirmation: t.requiresConfirmation,
          tags: t.tags,
          parameters: t.spec.parameters
        })))
      } else {
        yield* Console.log(`${pad("NAME", 22)} ${pad("VERSION", 8)} FLAGS  DESCRIPTION`)
        for (const t of tools) {
          const flags = `${t.spec.readOnly ? "ro" : "--"} ${t.requiresConfirmation ? "cf" : "--"}`
          const description = t.spec.description.split(/(?<=\.)\s/)[0] ?? ""
          yield* Console.log(`${pad(t.name, 22)} ${pad(t.version, 8)} ${flags}  ${description}`)
        }
        yield* Console.log(`\n${tools.length} tools (ro = read-only, cf = requires confirmation)`)
      }
      return ExitCode.ok
    }), Option.none(), mcpConfig)
).pipe(Command.withDescription("List the registered tools"))

const describe = Command.make(
  "describe",
  { name: Args.text({ name: "name" }).pipe(Args.withDescription("The tool's name")) },
  ({ name }) =>
    withSystem(Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const found = yield* Effect.either(registry.get(name))
      if (found._tag === "Left") {
        yield* Console.error(found.left.message)
        return ExitCode.failed
      }
      const t = found.right
      yield* printJson({
        name: t.name,
        version: t.version,
        versions: yield* registry.versions(t.name),
        description: t.spec.description,
        readOnly: t.spec.readOnly,
        requiresConfirmation: t.requiresConfirmation,
        tags: t.tags,
        timeoutMs: t.timeoutMs ?? null,
        rateLimitRpm: t.rateLimitRpm ?? null,
        deprecated: t.deprecated ?? null,
        parameters: t.spec.parameters
      })
      return ExitCode.ok
    }))
).pipe(Command.withDescription("Print a tool's spec as JSON"))

const call = Command.make(
  "call",
  {
    name: Args.text({ name: "name" }).pipe(Args.withDescription("The tool to call")),
    args: Args.text({ name: "args" }).pipe(Args.withDescription("The arguments as a JSON object"), Args.withDefault("{}")),
    mode: modeOption,
    yes: Options.boolean("yes").pipe(Options.withAlias("y"), Options.withDescription("Confirm the call")),
    workspace: Options.directory("workspace").pipe(Options.withDescription("The workspace root"), Options.optional),
    version: Options.text("tool-version").pipe(
      Options.withDescription("A semver range of the tool's version (`--version RANGE` also works after `call`)"),
      Options.optional
    ),
    mcpConfig: mcpConfigOption
  },
  ({ args, mcpConfig, mode, name, version, workspace, yes }) =>
    Effect.gen(function*() {
      const parsed = Either.try({
        try: (): unknown => JSON.parse(args),
        catch: (error) => (error instanceof Error ? error.message : String(error))
      })
      if (Either.isLeft(parsed)) {
        yield* Console.error(`Invalid JSON arguments: ${parsed.left}`)
        return ExitCode.usage
      }
      if (typeof parsed.right !== "object" || parsed.right === null || Array.isArray(parsed.right)) {
        yield* Console.error("The arguments must be a JSON object")
        return ExitCode.usage
      }
      const system = yield* ToolSystem
      const exit = yield* Effect.exit(
        system.execute(name, parsed.right, {
          mode: modeOf(mode),
          confirm: yes,
          versionRange: Option.getOrUndefined(version)
        })
      )
      if (Exit.isSuccess(exit)) {
        yield* Console.log(JSON.stringify(exit.value))
        return exit.value.success ? ExitCode.ok : ExitCode.failed
      }
      const defect = Cause.dieOption(exit.cause)
      if (Option.isSome(defect) && defect.value instanceof PathTraversalError) {
        yield* Console.error(defect.value.message)
        return ExitCode.pathTraversal
      }
      yield* Console.error(Cause.pretty(exit.cause))
      return ExitCode.failed
    }).pipe((effect) => withSystem(effect, workspace, mcpConfig))
).pipe(Command.withDescription("Call a tool and print its ToolExecutionResult as JSON"))

const exportCommand = Command.make(
  "export",
  {
    format: Options.choice("format", formats).pipe(Options.withDescription("The model API's shape")),
    tag: tagOption,
    mode: modeOption
  },
  ({ format, mode, tag }) =>
    withSystem(Effect.gen(function*() {
      const registry = yield* ToolRegistry
      yield* printJson(yield* registry.export(format, { tags: Option.toArray(tag), mode: modeOf(mode) }))
      return ExitCode.ok
    }))
).pipe(Command.withDescription("Print the tool specs in a model API's shape (a JSON array)"))

const docs = Command.make(
  "docs",
  {
    check: Options.boolean("check").pipe(Options.withDescription("Exit 1 when the table is stale, write nothing")),
    file: Options.text("file").pipe(Options.withDescription("The markdown file"), Options.withDefault("docs/tools.md"))
  },
  ({ check, file }) =>
    withSystem(Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const registry = yield* ToolRegistry
      const content = yield* fs.readFileString(file)
      const updated = replaceBetweenMarkers(content, renderToolTable(yield* registry.list({ includeDeprecated: true })))
      if (updated === undefined) {
        yield* Console.error(`${file} has no <!-- AUTO:tools --> ... <!-- /AUTO:tools --> markers`)
        return ExitCode.failed
      }
      if (updated === content) {
        yield* Console.log(`${file} is up to date`)
        return ExitCode.ok
      }
      if (check) {
        yield* Console.error(`${file} is stale: run \`npm run docs\``)
        return ExitCode.failed
      }
      yield* fs.writeFileString(file, updated)
      yield* Console.log(`${file} updated`)
      return ExitCode.ok
    }))
).pipe(Command.withDescription("Regenerate the tool table in docs/tools.md (or check it with --check)"))

/** The root command. */
const mcp = Command.make(
  "mcp",
  {
    mode: modeOption,
    workspace: Options.directory("workspace").pipe(Options.withDescription("The workspace root"), Options.optional),
    yes: Options.boolean("yes").pipe(Options.withAlias("y"), Options.withDescription("Confirm every call")),
    mcpConfig: mcpConfigOption,
    tag: tagOption
  },
  ({ mcpConfig, mode, tag, workspace, yes }) =>
    exitWith(Effect.flatMap(Effect.promise(() => import("../tools/mcp/stdio.js")), ({ runMcpCommand }) =>
      Effect.as(
        runMcpCommand({
          mode: modeOf(mode),
          workspace: Option.getOrUndefined(workspace),
          yes,
          mcpConfig: Option.getOrUndefined(mcpConfig),
          tags: Option.toArray(tag)
        }),
        ExitCode.ok
      )))
).pipe(Command.withDescription("Serve the registry as an MCP server over stdio"))

export const root = Command.make("effect-tool-system", {}, () => Effect.succeed(ExitCode.ok)).pipe(
  Command.withDescription("List, describe, call and export the tools of effect-tool-system"),
  Command.withSubcommands([list, describe, call, exportCommand, docs, mcp])
)
