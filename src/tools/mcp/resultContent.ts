/**
 * What the MCP server sends for a call's result, beyond its text (`toCallToolResult`):
 *
 * - **Structured output.** A tool with an `outputSchema` (its `success` schema encodes to an
 *   object) answers each successful call with `structuredContent` beside the text: the encoded
 *   output as JSON data, the very value the text shows (`readableJson`).
 * - **A cap on the text.** A result whose text is longer than `maxResultChars` (UTF-16 code
 *   units, what `string.length` counts; default `DEFAULT_MAX_RESULT_CHARS`) is sent cut there
 *   (never between the two halves of a surrogate pair), with a line saying so. The whole text
 *   is written to a fresh file under `.mcp-results/` in the workspace, atomically and bound to
 *   what it opens (`writeFileAtomic`: a symbolic link planted at `.mcp-results` fails the
 *   write, nothing is written through it), and the answer links it: a `resource_link` content
 *   item (`file://` URI) and the line naming its workspace-relative path. A write that fails
 *   leaves the cut text with a note saying the whole was not kept, and why; never a crash,
 *   never the whole text.
 * - **Read-only modes** (`explore`, `plan`): nothing is written. The file would be the
 *   server's doing, not a tool's, but the promise of a read-only mode is that the session
 *   leaves the workspace as it found it, and a model in that mode could not even remove the
 *   file; the answer is the cut text with a note saying why nothing was kept.
 * - A capped answer of a tool with an `outputSchema` is an error answer (`isError: true`)
 *   without `structuredContent`: the whole structured value is as large as the text, and MCP
 *   wants a successful answer of such a tool to carry it (a client such as SDK v2's refuses
 *   one without). The text says where the whole result is.
 *
 * Each result gets its own name (time, tool name, random suffix), so concurrent results never
 * share a file. The files are `0600` and the folder is bounded (`resultFiles.ts`: at most
 * `resultFiles.maxFiles` files and `maxBytes` bytes, the oldest of ours deleted after each write,
 * off the call's path).
 *
 * @since 1.0.0
 */
import type { CallToolResult } from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { randomBytes } from "node:crypto"
import * as NodePath from "node:path"
import { pathToFileURL } from "node:url"
import type { AgentMode } from "../../domain/AgentMode.js"
import { readableJson } from "../../domain/readableJson.js"
import type { ToolExecutionResult } from "../../domain/ToolExecutionResult.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { Workspace } from "../../services/Workspace.js"
import { type McpResultFilesOptions, resultBounds, schedulePrune, writeResultFile } from "./resultFiles.js"

/**
 * The longest text of a served result by default, in characters (UTF-16 code units).
 *
 * @since 1.0.0
 * @category constants
 */
export const DEFAULT_MAX_RESULT_CHARS = 100_000

/**
 * The workspace folder the whole text of a capped result is written to.
 *
 * @since 1.0.0
 * @category constants
 */
export const RESULTS_DIR = ".mcp-results"

/**
 * `text` cut to at most `max` UTF-16 code units, never between the halves of a surrogate pair
 * (the high half left at the end is dropped too).
 *
 * @internal
 */
export const cutText = (text: string, max: number): string => {
  if (text.length <= max) return text
  const end = Math.max(0, Math.floor(max))
  const last = text.charCodeAt(end - 1)
  // a high surrogate (0xD800-0xDBFF) whose low half lies past the cut
  return end > 0 && last >= 0xd800 && last <= 0xdbff ? text.slice(0, end - 1) : text.slice(0, end)
}

/** The cap as given: `Infinity` turns it off; anything not a positive number is the default. */
const capOf = (max: number | undefined): number =>
  max === undefined || Number.isNaN(max) || max < 1 ? DEFAULT_MAX_RESULT_CHARS : Math.floor(max)

/** A tool's name as a file name's part: letters, digits, `_` and `-`, at most 64. */
const fileStem = (tool: string): string => tool.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 64) || "result"

/** A fresh file name for one result of `tool`. */
const resultFileName = (tool: string): string =>
  `${new Date().toISOString().replace(/[:.]/g, "-")}-${fileStem(tool)}-${randomBytes(6).toString("hex")}.txt`

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * The structured content of a successful result of a tool with an output schema: the output as
 * JSON data, when it is an object (an encoded struct is).
 *
 * @internal
 */
export const structuredContentOf = (output: unknown): Record<string, unknown> | undefined => {
  const json = readableJson(output)
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined
  const record: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(json)) record[key] = value
  return record
}

/**
 * What `makeResultAnswer` takes.
 *
 * @since 1.0.0
 * @category models
 */
export interface ResultAnswerOptions {
  /** The calls' mode: a read-only one writes no overflow file. */
  readonly mode?: AgentMode | undefined
  /** See `McpServeOptions.maxResultChars`. */
  readonly maxResultChars?: number | undefined
  /** See `McpServeOptions.resultFiles`. */
  readonly resultFiles?: McpResultFilesOptions | undefined
}

/**
 * The answer to a result, from its text answer (`toCallToolResult`: one text item):
 * `structuredContent` for a tool with an output schema, and the cap on the text (see the module
 * doc). Its effect never fails.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeResultAnswer = (
  options: ResultAnswerOptions = {}
): Effect.Effect<
  (result: ToolExecutionResult, reply: CallToolResult) => Effect.Effect<CallToolResult>,
  never,
  ToolRegistry
> =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    const workspace = yield* Effect.serviceOption(Workspace)
    const max = capOf(options.maxResultChars)
    const bounds = resultBounds(options.resultFiles)
    const readOnly = options.mode?.readOnly === true

    /** The output schema of the version that ran, if it has one. */
    const outputSchemaOf = (tool: string, version: string) =>
      Effect.map(
        Effect.option(registry.get(tool, version)),
        (found) => (Option.isSome(found) ? found.value.outputSchema : undefined)
      )

    /** Writes the whole text; the workspace-relative path and the absolute one, or why not. */
    const keep = (tool: string, text: string): Effect.Effect<
      { readonly ok: true; readonly relative: string; readonly absolute: string } | {
        readonly ok: false
        readonly why: string
      }
    > => {
      if (readOnly) {
        return Effect.succeed({
          ok: false,
          why: `the mode "${options.mode?.name ?? ""}" is read-only, and the server writes nothing in the workspace then`
        })
      }
      if (Option.isNone(workspace)) return Effect.succeed({ ok: false, why: "there is no workspace to keep it in" })
      const ws = workspace.value
      // a UTF-16 code unit is at most 3 bytes of UTF-8: only a text that may be too large is measured
      if (text.length * 3 > bounds.maxBytes && Buffer.byteLength(text, "utf8") > bounds.maxBytes) {
        return Effect.succeed({ ok: false, why: `it is larger than the ${bounds.maxBytes} bytes ${RESULTS_DIR}/ may hold` })
      }
      return Effect.gen(function*() {
        const root = yield* ws.root
        const name = resultFileName(tool)
        const absolute = NodePath.join(root, RESULTS_DIR, name)
        yield* writeResultFile(root, absolute, text)
        // the oldest go, in a fiber of their own: the call does not wait
        yield* schedulePrune(NodePath.join(root, RESULTS_DIR), bounds)
        return { ok: true as const, relative: `${RESULTS_DIR}/${name}`, absolute }
      }).pipe(
        Effect.catch((error) =>
          Effect.as(
            Effect.logWarning(`Keeping a large MCP result of "${tool}" failed: ${error.message}`),
            { ok: false as const, why: `writing it to ${RESULTS_DIR}/ failed: ${error.message}` }
          )
        ),
        Effect.catchDefect((defect) =>
          Effect.as(
            Effect.logWarning(`Keeping a large MCP result of "${tool}" failed: ${reasonOf(defect)}`),
            { ok: false as const, why: `writing it to ${RESULTS_DIR}/ failed unexpectedly` }
          )
        )
      )
    }

    /** `reply` with its text capped (its one text item is ours: `toCallToolResult` made it). */
    const capped = (tool: string, reply: CallToolResult, text: string): Effect.Effect<CallToolResult> =>
      Effect.map(keep(tool, text), (kept) => {
        const cut = cutText(text, max)
        const size = `The result is ${text.length} characters, cut here at ${cut.length}`
        const note = kept.ok
          ? `[${size}; the whole result is in ${kept.relative} (in the workspace).]`
          : `[${size}; the whole result was not kept: ${kept.why}. Ask for less (a narrower call).]`
        const content: CallToolResult["content"] = [{ type: "text", text: `${cut}\n\n${note}` }]
        if (kept.ok) {
          content.push({
            type: "resource_link",
            uri: pathToFileURL(kept.absolute).href,
            name: NodePath.posix.basename(kept.relative),
            title: `The whole result of ${tool}`,
            mimeType: "text/plain"
          })
        }
        const structured = reply.structuredContent !== undefined
        return reply.isError === true || structured ? { content, isError: true } : { content }
      })

    return (result, base) =>
      Effect.gen(function*() {
        const first = base.content[0]
        const text = first?.type === "text" ? first.text : ""
        let reply = base
        if (result.success && (yield* outputSchemaOf(result.tool, result.version)) !== undefined) {
          const structuredContent = structuredContentOf(result.output)
          if (structuredContent !== undefined) reply = { ...reply, structuredContent }
        }
        return text.length > max ? yield* capped(result.tool, reply, text) : reply
      })
  })
