/**
 * The registry's tools as MCP lists them: name, `title`, description, input schema and the
 * annotations our flags give (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
 * `openWorldHint`).
 *
 * - `readOnlyHint`: the tool's `readOnly` flag (what read-only agent modes check).
 * - `destructiveHint`: every tool that is not read-only (a scoped-write tool included: it may
 *   overwrite the files it names).
 * - `idempotentHint`: a read-only tool (the registry knows no other tool whose repeated call
 *   has no further effect).
 * - `openWorldHint`: a tool that reaches outside the workspace: tagged `web`, `shell` or `mcp`
 *   (a bridged server's proxy).
 *
 * `outputSchema`: only a tool whose `success` schema encodes to an object has one (MCP wants an
 * object there; see `ToolInfo.outputSchema`), declared draft-07 (`$schema`), the dialect it is
 * written in. A tool without a `success` schema, or with one that is not an object, has none,
 * and its answers carry no `structuredContent`.
 *
 * @since 1.0.0
 */
import type { Tool as McpTool } from "@modelcontextprotocol/server"
import type { RegisteredTool } from "../../domain/Tool.js"

/** The tags of tools that reach the world outside the workspace. */
const OPEN_WORLD_TAGS: ReadonlySet<string> = new Set(["web", "shell", "mcp"])

/**
 * `read_file` as `Read file`.
 *
 * @internal
 */
export const titleOf = (name: string): string => {
  const words = name.replace(/[_-]+/g, " ").trim()
  return words.length === 0 ? name : words[0]?.toUpperCase() + words.slice(1)
}

/**
 * One registered tool in MCP's `tools/list` shape.
 *
 * @since 1.0.0
 * @category conversions
 */
export const mcpToolOf = (tool: RegisteredTool): McpTool => {
  const spec = tool.spec
  const title = titleOf(spec.name)
  const readOnly = spec.readOnly
  return {
    name: spec.name,
    title,
    description: spec.description,
    inputSchema: { ...spec.parameters, type: "object" },
    ...(tool.outputSchema === undefined ? {} : { outputSchema: { ...tool.outputSchema, type: "object" } }),
    annotations: {
      title,
      readOnlyHint: readOnly,
      destructiveHint: !readOnly,
      idempotentHint: readOnly,
      openWorldHint: tool.tags.some((tag) => OPEN_WORLD_TAGS.has(tag))
    }
  }
}
