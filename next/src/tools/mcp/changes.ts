/**
 * What the bridge tells the application about its tools as servers change them: the held
 * changes waiting for approval (the rug-pull hold), the events of a tool's life, and the
 * error of an approval that finds nothing to approve.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import equal from "fast-deep-equal"
import type { JsonSchema } from "../../domain/ToolSpec.js"

/**
 * What a proxy shows and how it is gated: the parts of a server's tool a change is measured on.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpToolDefinition {
  /** The description models read (the tool's `description`, else its `title`, else ours). */
  readonly description: string
  readonly inputSchema: JsonSchema
  /** The server's `readOnlyHint` (for a trusted server, it decides confirmation and read-only modes). */
  readonly readOnlyHint: boolean
}

/**
 * A part of a definition that changed.
 *
 * @since 0.1.0
 * @category models
 */
export type McpChangedPart = "description" | "inputSchema" | "readOnlyHint"

/**
 * What differs between two definitions (schemas compared as JSON values, key order aside).
 *
 * @internal
 */
export const changedParts = (before: McpToolDefinition, after: McpToolDefinition): Array<McpChangedPart> => {
  const parts: Array<McpChangedPart> = []
  if (before.description !== after.description) parts.push("description")
  if (!equal(before.inputSchema, after.inputSchema)) parts.push("inputSchema")
  if (before.readOnlyHint !== after.readOnlyHint) parts.push("readOnlyHint")
  return parts
}

/**
 * Whether two definitions are the same.
 *
 * @internal
 */
export const sameDefinition = (a: McpToolDefinition, b: McpToolDefinition): boolean => changedParts(a, b).length === 0

/**
 * A tool its server changed after it was first seen, held until the application approves
 * `version`: until then every call of the proxy (any version) is refused with
 * `MCP_TOOL_CHANGED` and nothing is sent to the server.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpToolChange {
  /** The proxy's name in the registry. */
  readonly name: string
  readonly server: string
  /** The tool's name on the server. */
  readonly tool: string
  /** The version approved so far (the first one seen, or the last approved). */
  readonly previousVersion: string
  /** The held version, registered (deprecated while held) with the new definition. */
  readonly version: string
  readonly changed: ReadonlyArray<McpChangedPart>
  readonly before: McpToolDefinition
  readonly after: McpToolDefinition
}

/**
 * What happened to a bridged tool.
 *
 * @since 0.1.0
 * @category models
 */
export type McpToolEvent = Data.TaggedEnum<{
  /** A proxy was registered: at the start, or for a tool a server listed later. */
  ToolAdded: { readonly name: string; readonly server: string; readonly tool: string; readonly version: string }
  /** The server no longer lists the tool: every version of its proxy is unregistered. */
  ToolRemoved: { readonly name: string; readonly server: string; readonly tool: string }
  /** The server changed the tool: it is held until approved. */
  ToolHeld: { readonly change: McpToolChange }
  /** The application approved a held change: its version is the one that runs now. */
  ToolApproved: { readonly change: McpToolChange }
  /** The server lists the approved definition again: the held version is dropped and calls run. */
  ToolRestored: { readonly name: string; readonly server: string; readonly tool: string; readonly version: string }
}>

/**
 * Constructors and matchers of `McpToolEvent`.
 *
 * @since 0.1.0
 * @category models
 */
export const McpToolEvent = Data.taggedEnum<McpToolEvent>()

/**
 * `approve` found no held change of that name (or another version is held than the one named).
 *
 * @since 0.1.0
 * @category errors
 */
export class McpNotPending extends Data.TaggedError("McpNotPending")<{
  readonly name: string
  /** The version the caller asked to approve, if any. */
  readonly version: string | undefined
  /** The version that is held now, if any. */
  readonly pending: string | undefined
}> {
  override get message(): string {
    if (this.pending === undefined) return `No change of "${this.name}" waits for approval`
    return `The held version of "${this.name}" is ${this.pending}, not ${this.version ?? "?"}: look at it before approving it`
  }
}
