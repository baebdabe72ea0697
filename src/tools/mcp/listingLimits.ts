/**
 * What of a server's listing is taken: a tool's input schema must cost at most
 * `MAX_SCHEMA_COST` to compile (each keyword and each enum or `required` member counts, see
 * `schemaBudget.ts`) and nest at most `MAX_SCHEMA_DEPTH` levels, and all the schemas of one
 * listing together must stay within `MAX_LISTING_SCHEMA_COST`. Each schema taken is compiled
 * (ajv, synchronous) when the listing comes, so this bounds the work a server can make us do
 * by listing tools: a 10 MB listing of small schemas would otherwise be minutes of blocked
 * event loop.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { McpTool } from "./connection.js"
import { MAX_SCHEMA_COST, metaSchemaSteps, screenSchema } from "./jsonSchema.js"

/** Most cost of the input schemas of one listing together (a second or so of compiling). */
export const MAX_LISTING_SCHEMA_COST = 10_000

/** A tool of a listing that is not taken, and why. */
export interface LeftOut {
  readonly tool: string
  readonly reason: string
}

/** A tool taken whose schema is only partly checked here, and what is left to the server. */
export interface Simplified {
  readonly tool: string
  readonly parts: ReadonlyArray<string>
}

/** What screening one tool decided. */
type Screened =
  | { readonly _tag: "Taken"; readonly simplified: ReadonlyArray<string> }
  | { readonly _tag: "LeftOut"; readonly reason: string }

/** Screens the tools of one listing, one at a time, in order, against the listing's budget. */
const makeScreen = () => {
  let budget = MAX_LISTING_SCHEMA_COST
  return (tool: McpTool): Screened => {
    const limit = Math.min(MAX_SCHEMA_COST, budget)
    const { cost, problem, simplified } = screenSchema(tool.inputSchema, limit)
    if (problem === undefined) {
      budget -= cost
      return { _tag: "Taken", simplified }
    }
    return limit < MAX_SCHEMA_COST && cost > limit
      ? { _tag: "LeftOut", reason: `the input schemas of the server's tools cost more than ${MAX_LISTING_SCHEMA_COST} to compile together` }
      : { _tag: "LeftOut", reason: `its input schema cannot be checked here: ${problem}` }
  }
}

/** The tools of a listing that are taken (in order), those that are not, and those simplified. */
export const screenListing = (
  tools: ReadonlyArray<McpTool>
): {
  readonly taken: ReadonlyArray<McpTool>
  readonly leftOut: ReadonlyArray<LeftOut>
  readonly simplified: ReadonlyArray<Simplified>
} => {
  const screen = makeScreen()
  const taken: Array<McpTool> = []
  const leftOut: Array<LeftOut> = []
  const simplified: Array<Simplified> = []
  for (const tool of tools) {
    const screened = screen(tool)
    if (screened._tag === "LeftOut") {
      leftOut.push({ tool: tool.name, reason: screened.reason })
      continue
    }
    taken.push(tool)
    if (screened.simplified.length > 0) simplified.push({ tool: tool.name, parts: screened.simplified })
  }
  return { taken, leftOut, simplified }
}

/**
 * `screenListing`, yielding to the event loop between tools, with a warning for each tool left
 * out and each one only partly checked here.
 */
export const takeListing = (server: string, tools: ReadonlyArray<McpTool>): Effect.Effect<ReadonlyArray<McpTool>> =>
  Effect.gen(function*() {
    const screen = makeScreen()
    const taken: Array<McpTool> = []
    const warn = (tool: string, what: string) => Effect.logWarning(`MCP server "${server}": tool "${tool}" ${what}`)
    for (const tool of tools) {
      yield* yieldToEventLoop
      const screened = screen(tool)
      if (screened._tag === "LeftOut") {
        yield* warn(tool.name, `skipped: ${screened.reason}`)
        continue
      }
      taken.push(tool)
      // the meta-schemas the compile of this tool needs, one per turn (once per process)
      for (const step of metaSchemaSteps(tool.inputSchema)) {
        yield* yieldToEventLoop
        step()
      }
      if (screened.simplified.length > 0) {
        yield* warn(tool.name, `is checked here only in part, the server checks the rest: ${screened.simplified.join("; ")}`)
      }
    }
    return taken
  })

/**
 * Lets the event loop run (timers, I/O) before the next tool of a listing is compiled: each
 * compile is one synchronous block, so a listing yields between its tools. An immediate set in
 * a timer or an I/O callback runs in the same turn, before any timer (what ran before it and
 * what runs after it add up): the second immediate is set in the check phase, so it runs in
 * the next turn, after the timers.
 */
export const yieldToEventLoop: Effect.Effect<void> = Effect.async<void>((resume) => {
  let pending = setImmediate(() => {
    pending = setImmediate(() => resume(Effect.void))
  })
  return Effect.sync(() => clearImmediate(pending))
})
