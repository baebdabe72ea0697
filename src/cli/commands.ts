/**
 * The command line on `effect/cli`: list, describe, export, docs and mcp here; call and
 * explain in their own files. A command's handler ends with the process exit code
 * (`exitWith`).
 *
 * @since 0.1.0
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import { formats } from "../domain/exports.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import type { McpHttpAuthOptions } from "../tools/mcp/httpAuth.js"
import { oneLine } from "../tools/shared/sanitize.js"
import { auditLayerOf, auditOption, call } from "./call.js"
import {
  exitWith,
  jsonOption,
  mcpConfigOption,
  modeOf,
  modeOption,
  pad,
  printJson,
  switchFlag,
  tagOption,
  withSystem,
  workspaceOption
} from "./common.js"
import { renderToolTable, replaceBetweenMarkers } from "./docs.js"
import { explain } from "./explain.js"
import { ExitCode } from "./run.js"

/** Longest first sentence in `list`'s table (ours are under 400). */
const LIST_DESCRIPTION_MAX_CHARS = 400

const list = Command.make(
  "list",
  {
    tag: tagOption,
    mode: modeOption,
    json: jsonOption,
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
        const rows = tools.map((t) => {
          const flags = `${t.spec.readOnly ? "ro" : "--"} ${t.requiresConfirmation ? "cf" : "--"}`
          // one line, whatever the description holds (a bridged server's is not ours)
          const description = oneLine(t.spec.description.split(/(?<=\.)\s/)[0] ?? "", LIST_DESCRIPTION_MAX_CHARS)
          return `${pad(t.name, 22)} ${pad(t.version, 8)} ${flags}  ${description}`
        })
        // one write: stdout is synchronous here, and a write per line is ~2 ms of a start
        yield* Console.log([
          `${pad("NAME", 22)} ${pad("VERSION", 8)} FLAGS  DESCRIPTION`,
          ...rows,
          `\n${tools.length} tools (ro = read-only, cf = requires confirmation)`
        ].join("\n"))
      }
      return ExitCode.ok
    }), { mcpConfig })
).pipe(Command.withDescription("List the registered tools"))

const describe = Command.make(
  "describe",
  {
    name: Argument.String("name").pipe(Argument.withDescription("The tool's name")),
    mcpConfig: mcpConfigOption
  },
  ({ mcpConfig, name }) =>
    withSystem(Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const found = yield* Effect.result(registry.get(name))
      if (found._tag === "Failure") {
        yield* Console.error(found.failure.message)
        return ExitCode.failed
      }
      const t = found.success
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
    }), { mcpConfig, tool: name })
).pipe(Command.withDescription("Print a tool's spec as JSON"))

const exportCommand = Command.make(
  "export",
  {
    format: Flag.Literals("format", formats).pipe(Flag.withDescription("The model API's shape")),
    tag: tagOption,
    mode: modeOption,
    mcpConfig: mcpConfigOption
  },
  ({ format, mcpConfig, mode, tag }) =>
    withSystem(Effect.gen(function*() {
      const registry = yield* ToolRegistry
      yield* printJson(yield* registry.export(format, { tags: Option.toArray(tag), mode: modeOf(mode) }))
      return ExitCode.ok
    }), { mcpConfig })
).pipe(Command.withDescription("Print the tool specs in a model API's shape (a JSON array)"))

const docs = Command.make(
  "docs",
  {
    check: switchFlag("check").pipe(Flag.withDescription("Exit 1 when the table is stale, write nothing")),
    file: Flag.String("file").pipe(Flag.withDescription("The markdown file"), Flag.withDefault("docs/tools.md"))
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

/** `--rate-limit TOOL=RPM` (repeatable) as each tool's calls a minute, or the usage error. */
const rateLimitOption = Flag.KeyValuePair("rate-limit").pipe(
  Flag.withDescription("Allow TOOL=RPM calls of a builtin or ported tool a minute (repeatable)"),
  Flag.filterMap(
    (pairs) => {
      const limits = Object.entries(pairs).map(([tool, rpm]) => [tool, Number(rpm)] as const)
      return limits.every(([, rpm]) => Number.isFinite(rpm) && rpm > 0)
        ? Option.some(Object.fromEntries(limits))
        : Option.none()
    },
    (pairs) => `--rate-limit wants TOOL=RPM with RPM a positive number, not ${JSON.stringify(pairs)}`
  ),
  Flag.optional
)

/**
 * `--oauth-issuer`, `--oauth-audience` and `--oauth-jwks` as the HTTP server's `auth` (an empty
 * URL for a missing one: `runMcpCommand` fails the command, saying the two go together).
 */
const oauthOf = (
  issuer: Option.Option<string>,
  audience: Option.Option<string>,
  jwks: Option.Option<string>
): McpHttpAuthOptions | undefined =>
  Option.isNone(issuer) && Option.isNone(audience) && Option.isNone(jwks) ? undefined : {
    issuer: Option.getOrElse(issuer, () => ""),
    resource: Option.getOrElse(audience, () => ""),
    jwksUrl: Option.getOrUndefined(jwks)
  }

const mcp = Command.make(
  "mcp",
  {
    mode: modeOption,
    workspace: workspaceOption,
    yes: switchFlag("yes").pipe(Flag.withAlias("y"), Flag.withDescription("Confirm every call")),
    mcpConfig: mcpConfigOption,
    tag: tagOption,
    audit: auditOption,
    http: Flag.String("http").pipe(
      Flag.withDescription("Serve over Streamable HTTP on HOST:PORT (e.g. 127.0.0.1:3000) instead of stdio"),
      Flag.optional
    ),
    sessions: switchFlag("sessions").pipe(
      Flag.withDescription(
        "With --http: give 2025-11-25 clients sessions (Mcp-Session-Id), so a call that needs confirmation asks them; behind a load balancer, see --session-route"
      )
    ),
    sessionRoute: Flag.String("session-route").pipe(
      Flag.withDescription(
        "With --sessions: this process's tag, put before its session ids (NAME.<random>), for a load balancer to send each session to its process"
      ),
      Flag.optional
    ),
    oauthIssuer: Flag.String("oauth-issuer").pipe(
      Flag.withDescription("With --http: require bearer JWTs of this OAuth issuer (https, or a loopback host)"),
      Flag.optional
    ),
    oauthAudience: Flag.String("oauth-audience").pipe(
      Flag.withDescription("With --oauth-issuer: this server's canonical URL, the audience its tokens must name"),
      Flag.optional
    ),
    oauthJwks: Flag.String("oauth-jwks").pipe(
      Flag.withDescription("With --oauth-issuer: the issuer's key set URL (default: its metadata's jwks_uri)"),
      Flag.optional
    ),
    rateLimit: rateLimitOption,
    rateLimitRedis: Flag.String("rate-limit-redis").pipe(
      Flag.withDescription(
        "Keep the rate limits in this Redis (redis://HOST:PORT), shared by every process pointed at it; refuse calls while it is unreachable"
      ),
      Flag.optional
    )
  },
  ({ audit, http, mcpConfig, mode, oauthAudience, oauthIssuer, oauthJwks, rateLimit, rateLimitRedis, sessionRoute, sessions, tag, workspace, yes }) =>
    // the MCP server and SDK load only for this command
    exitWith(Effect.flatMap(Effect.promise(() => import("../tools/mcp/stdio.js")), ({ runMcpCommand }) =>
      Effect.as(
        runMcpCommand({
          mode: modeOf(mode),
          workspace: Option.getOrUndefined(workspace),
          yes,
          mcpConfig: Option.getOrUndefined(mcpConfig),
          tags: Option.toArray(tag),
          // a server may be killed at any moment: each served call's record is on disk before its answer
          audit: auditLayerOf(audit, { durable: true }),
          http: Option.getOrUndefined(http),
          sessions,
          sessionRoute: Option.getOrUndefined(sessionRoute),
          oauth: oauthOf(oauthIssuer, oauthAudience, oauthJwks),
          rateLimits: Option.getOrUndefined(rateLimit),
          rateLimitRedis: Option.getOrUndefined(rateLimitRedis)
        }),
        ExitCode.ok
      )))
).pipe(Command.withDescription("Serve the registry as an MCP server over stdio (or Streamable HTTP with --http)"))

/** The root command: by itself it does nothing and exits 0 (`--help` lists the commands). */
export const root = Command.make("effect-tool-system", {}, () => Effect.void).pipe(
  Command.withDescription("List, describe, call, explain and export the tools of effect-tool-system"),
  Command.withSubcommands([list, describe, call, explain, exportCommand, docs, mcp])
)
