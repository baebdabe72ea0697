/**
 * What of a server's listing is taken: a tool's input schema must be small enough to compile
 * (`MAX_SCHEMA_NODES`, `MAX_SCHEMA_DEPTH`), and all the schemas of one listing together must
 * stay within `MAX_LISTING_SCHEMA_NODES`. Each schema taken is compiled (ajv, synchronous)
 * when the listing comes, so this bounds the work a server can make us do by listing tools:
 * a 10 MB listing of small schemas would otherwise be minutes of blocked event loop.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { McpTool } from "./connection.js"
import { MAX_SCHEMA_NODES, schemaSize } from "./jsonSchema.js"

/** Most objects and arrays in the input schemas of one listing together (seconds of compiling at most). */
export const MAX_LISTING_SCHEMA_NODES = 20_000

/** A tool of a listing that is not taken, and why. */
export interface LeftOut {
  readonly tool: string
  readonly reason: string
}

/** The tools of a listing that are taken (in order) and those that are not. */
export const screenListing = (
  tools: ReadonlyArray<McpTool>
): { readonly taken: ReadonlyArray<McpTool>; readonly leftOut: ReadonlyArray<LeftOut> } => {
  const taken: Array<McpTool> = []
  const leftOut: Array<LeftOut> = []
  let budget = MAX_LISTING_SCHEMA_NODES
  for (const tool of tools) {
    const limit = Math.min(MAX_SCHEMA_NODES, budget)
    const { nodes, problem } = schemaSize(tool.inputSchema, limit)
    if (problem === undefined) {
      taken.push(tool)
      budget -= nodes
    } else if (limit < MAX_SCHEMA_NODES && nodes > limit) {
      leftOut.push({
        tool: tool.name,
        reason: `the input schemas of the server's tools hold more than ${MAX_LISTING_SCHEMA_NODES} objects and arrays together`
      })
    } else {
      leftOut.push({ tool: tool.name, reason: `its input schema is too big: ${problem}` })
    }
  }
  return { taken, leftOut }
}

/** `screenListing`, with a warning for each tool left out. */
export const takeListing = (server: string, tools: ReadonlyArray<McpTool>): Effect.Effect<ReadonlyArray<McpTool>> =>
  Effect.suspend(() => {
    const { leftOut, taken } = screenListing(tools)
    return Effect.as(
      Effect.forEach(
        leftOut,
        ({ reason, tool }) => Effect.logWarning(`MCP server "${server}": tool "${tool}" skipped: ${reason}`),
        // Stryker disable next-line ObjectLiteral,BooleanLiteral: the collected results are dropped either way
        { discard: true }
      ),
      taken
    )
  })
