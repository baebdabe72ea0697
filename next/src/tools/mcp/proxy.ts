/**
 * The proxy of one server tool: a raw-JSON-Schema tool named `"{server}__{tool}"` whose
 * handler calls the server. It goes through the same executor and gates as every tool.
 *
 * Annotations are hints from a server we may not trust (the MCP specification says so): they
 * waive nothing unless the user's configuration trusts the server.
 * - `readOnly` (allowed in `explore` and `plan`) only when the server says
 *   `readOnlyHint: true` AND the configuration marks the server `trusted: true`;
 * - `requiresConfirmation` as the server's `requiresConfirmation` in the configuration says,
 *   when it says; otherwise always, except for a tool the configuration lists in
 *   `toolsWithoutConfirmation` and a `readOnlyHint: true` tool of a `trusted: true` server.
 *
 * Paths: a server's `inputSchema` marks no argument as a workspace path, so a proxy has no
 * `WorkspacePath` fields. The executor resolves nothing, the mode gate and the policy see no
 * paths, and a proxy is never a scoped write: what a server does with a path is its own
 * business, inside whatever roots it was started with.
 *
 * The rug-pull hold: each proxy is one version of a server tool's definition, and a call goes
 * to the server only when `admit` lets it (the definition is the one the application approved
 * and the one the server lists now); otherwise it ends with `McpToolChanged`.
 *
 * Output: a tool's `outputSchema` is not part of its definition (it gates nothing); its
 * server's last listing has it, and an answer that does not pass it is a `TOOL_ERROR` whose
 * `details` list each mismatch (`outputCheck.ts`).
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { McpToolChanged } from "../../domain/errors.js"
import { ToolError, ToolTimeout } from "../../domain/errors.js"
import type { Tool } from "../../domain/Tool.js"
import type { JsonSchema } from "../../domain/ToolSpec.js"
import { modelText } from "../shared/sanitize.js"
import type { CallResult } from "./callRequest.js"
import type { McpToolDefinition } from "./changes.js"
import type { McpTool } from "./connection.js"
import { proxyName } from "./names.js"
import { issueText } from "./outputCheck.js"
import { makeRawTool } from "./rawTool.js"
import type { ServerHandle } from "./serverHandle.js"

/**
 * The default timeout of a proxied call.
 *
 * @internal
 */
export const DEFAULT_CALL_TIMEOUT = Duration.seconds(60)
/**
 * The version of a tool's first proxy (each approved change is the next major version).
 *
 * @internal
 */
export const PROXY_VERSION = "1.0.0"
/** Longest description taken from a server. */
const MAX_DESCRIPTION_CHARS = 4096
/** Longest error text taken from an `isError` answer. */
const MAX_ERROR_CHARS = 4000
/** Longest line of one mismatch with the output schema (its path is the server's keys). */
const MAX_ISSUE_CHARS = 300

/** The text of one content block; non-text blocks are named, not inlined. */
const blockText = (block: Readonly<Record<string, unknown>>): string => {
  const size = (data: unknown) => (typeof data === "string" ? `, ${Math.floor((data.length * 3) / 4)} bytes` : "")
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? block.text : ""
    case "image":
    case "audio":
      return `[${block.type} ${String(block.mimeType)}${size(block.data)}]`
    case "resource_link":
      return `[resource ${String(block.uri)}]`
    case "resource": {
      const resource = block.resource
      if (typeof resource !== "object" || resource === null) return "[resource]"
      const text: unknown = Reflect.get(resource, "text")
      return typeof text === "string" ? text : `[resource ${String(Reflect.get(resource, "uri"))}${size(Reflect.get(resource, "blob"))}]`
    }
    default:
      return `[${String(block.type)} content]`
  }
}

/**
 * Structured content as JSON; named, not shown, when it is nested too deep for
 * `JSON.stringify` (a server's answer may be nested a hundred thousand levels).
 */
const jsonText = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? ""
  } catch {
    return "[structured content nested too deep to show]"
  }
}

/**
 * A call's answer as text: its content blocks, or its structured content as JSON.
 *
 * @since 0.1.0
 * @category utils
 */
export const resultText = (result: CallResult): string => {
  const content = Array.isArray(result.content) ? result.content : []
  if (content.length > 0) return content.map((block) => blockText(block)).join("\n")
  if (result.structuredContent !== undefined) return jsonText(result.structuredContent)
  if ("toolResult" in result) return jsonText(result.toolResult)
  return ""
}

/**
 * `text` cut at `max` characters, saying so.
 *
 * @since 0.1.0
 * @category utils
 */
export const capText = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max)}\n… [output cut at ${max} of ${text.length} characters]`

/**
 * `text` from a server as a model reads it: cut at `max` characters (saying so), without
 * escape sequences, control characters or bidi controls (`\n` and `\t` stay, other line
 * breaks become `\n`). The work is bounded by `max`, whatever the text's length.
 *
 * @internal
 */
export const shownText = (text: string, max: number): string => {
  const cut = capText(text, max)
  return modelText(cut, { window: cut.length })
}

/**
 * What a proxy of `tool` shows and how it is gated. The server's description is cut and
 * loses its escape sequences, control characters and bidi controls (`\n` and `\t` stay): it
 * reaches models, terminals and whoever approves a change.
 *
 * @internal
 */
export const definitionOf = (server: string, tool: McpTool): McpToolDefinition => ({
  description: modelText(
    tool.description ?? tool.title ?? `The tool "${tool.name}" of the MCP server "${server}"`,
    { window: MAX_DESCRIPTION_CHARS }
  ),
  inputSchema: tool.inputSchema,
  readOnlyHint: tool.annotations?.readOnlyHint === true
})

/**
 * Options of a proxy.
 *
 * @internal
 */
export interface ProxyOptions {
  /** Longest output of a call, in characters. */
  readonly maxOutputChars: number
  /** Its version (semver). */
  readonly version: string
  /** Runs just before each request is sent; an error it returns (the hold) stops the call. */
  readonly admit: () => McpToolChanged | undefined
}

/**
 * The proxy of `tool` on `handle`'s server. Throws `InvalidToolDefinition` when the tool's
 * `inputSchema` cannot be compiled.
 *
 * @internal
 */
export const makeProxy = (handle: ServerHandle, tool: McpTool, options: ProxyOptions): Tool => {
  const name = proxyName(handle.name, tool.name)
  const definition = definitionOf(handle.name, tool)
  const timeout = handle.config.callTimeoutMs === undefined
    ? DEFAULT_CALL_TIMEOUT
    : Duration.millis(handle.config.callTimeoutMs)
  const timeoutMs = Duration.toMillis(timeout)
  const parameters: JsonSchema = definition.inputSchema
  return makeRawTool(name, {
    description: definition.description,
    parameters,
    readOnly: definition.readOnlyHint && handle.config.trusted === true,
    requiresConfirmation: handle.config.requiresConfirmation ??
      !((definition.readOnlyHint && handle.config.trusted === true) ||
        (handle.config.toolsWithoutConfirmation?.includes(tool.name) ?? false)),
    tags: ["mcp", `mcp:${handle.name}`],
    version: options.version,
    timeout,
    // the request's own timer is the deadline (it also cancels the call on the server), so
    // the executor sets no timer of its own
    ownDeadline: true,
    handler: (args) =>
      Effect.matchEffect(handle.call(tool.name, args, timeoutMs, options.admit), {
        onFailure: (error) =>
          Effect.fail(
            error._tag === "McpToolChanged"
              ? error
              : error._tag === "McpCallError" && error.timedOut === true
              ? new ToolTimeout({ tool: name, timeoutMs })
              : error._tag === "McpOutputMismatch"
              ? new ToolError({
                tool: name,
                message: shownText(error.message, MAX_ERROR_CHARS),
                details: {
                  server: handle.name,
                  tool: tool.name,
                  issues: error.issues.map((issue) => shownText(issueText(issue), MAX_ISSUE_CHARS))
                }
              })
              : new ToolError({ tool: name, message: shownText(error.message, MAX_ERROR_CHARS) })
          ),
        onSuccess: (result) => {
          const text = resultText(result)
          if (result.isError === true) {
            const reason = text.trim() === "" ? "the tool reported an error" : shownText(text, MAX_ERROR_CHARS)
            return Effect.fail(new ToolError({ tool: name, message: reason, details: { server: handle.name, tool: tool.name } }))
          }
          return Effect.succeed(shownText(text, options.maxOutputChars))
        }
      })
  })
}
