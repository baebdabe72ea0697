/**
 * What of a server's listing is taken: each of a tool's schemas, its input schema and its
 * output schema if it has one, must cost at most `MAX_SCHEMA_COST` to compile (each keyword
 * and each enum or `required` member counts, see `schemaBudget.ts`) and nest at most
 * `MAX_SCHEMA_DEPTH` levels, and all the schemas of one listing together must stay within
 * `MAX_LISTING_SCHEMA_COST`. Each schema taken is compiled (ajv, synchronous) when the listing
 * comes, so this bounds the work a server can make us do by listing tools: a 10 MB listing of
 * small schemas would otherwise be minutes of blocked event loop.
 *
 * A tool is taken whole or not at all: one whose input or output schema is past a bound, or
 * does not compile, is left out with a warning (a tool whose answers cannot be checked is not
 * called, see `outputCheck.ts`). What a budgeted copy leaves out (a huge enum's members,
 * uniqueItems over objects) is named in a warning: in arguments the server checks it, in
 * structured content no one does.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { JsonSchema } from "../../domain/ToolSpec.js"
import type { McpTool } from "./connection.js"
import { MAX_SCHEMA_COST, metaSchemaSteps, type SchemaRole, screenSchema } from "./jsonSchema.js"
import { knownOutputCheck, type OutputCheck, outputCheckOf } from "./outputCheck.js"

/** Most cost of the schemas (input and output) of one listing together (a second or so of compiling). */
export const MAX_LISTING_SCHEMA_COST = 10_000

/** A tool of a listing that is not taken, and why. */
export interface LeftOut {
  readonly tool: string
  readonly reason: string
}

/** A tool taken whose schemas are only partly checked here, and what is not (an output schema's parts say so). */
export interface Simplified {
  readonly tool: string
  readonly parts: ReadonlyArray<string>
}

/** What screening one tool decided. */
type Screened =
  | {
    readonly _tag: "Taken"
    readonly simplified: ReadonlyArray<string>
    /** What of its output schema is not checked. */
    readonly outputSimplified: ReadonlyArray<string>
  }
  | { readonly _tag: "LeftOut"; readonly reason: string }

/** Screens the tools of one listing, one at a time, in order, against the listing's budget. */
const makeScreen = () => {
  let budget = MAX_LISTING_SCHEMA_COST
  /** One schema of a tool, against what is left once `spent` is taken from the listing's budget. */
  const screenOne = (schema: JsonSchema, role: SchemaRole, spent: number) => {
    const limit = Math.min(MAX_SCHEMA_COST, budget - spent)
    const { cost, problem, simplified } = screenSchema(schema, limit, role)
    if (problem === undefined) return Result.succeed({ cost, simplified })
    const which = role === "arguments" ? "input" : "output"
    return Result.fail(
      limit < MAX_SCHEMA_COST && cost > limit
        ? `the input and output schemas of the server's tools cost more than ${MAX_LISTING_SCHEMA_COST} to compile together`
        : `its ${which} schema cannot be checked here: ${problem}`
    )
  }
  return (tool: McpTool): Screened => {
    const input = screenOne(tool.inputSchema, "arguments", 0)
    if (Result.isFailure(input)) return { _tag: "LeftOut", reason: input.failure }
    const output = tool.outputSchema === undefined
      ? Result.succeed({ cost: 0, simplified: [] })
      : screenOne(tool.outputSchema, "output", input.success.cost)
    if (Result.isFailure(output)) return { _tag: "LeftOut", reason: output.failure }
    budget -= input.success.cost + output.success.cost
    return { _tag: "Taken", simplified: input.success.simplified, outputSimplified: output.success.simplified }
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
    const parts = [...screened.simplified, ...screened.outputSimplified.map((part) => `output schema ${part}`)]
    if (parts.length > 0) simplified.push({ tool: tool.name, parts })
  }
  return { taken, leftOut, simplified }
}

/**
 * `screenListing`, yielding to the event loop between tools, with a warning for each tool left
 * out and each one only partly checked here. Each output schema taken is compiled here
 * (`prepareOutputCheck`): one that does not compile leaves its tool out.
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
      yield* metaSchemas(tool.inputSchema)
      const output = tool.outputSchema === undefined ? undefined : yield* prepareOutputCheck(tool.outputSchema)
      if (output !== undefined && Result.isFailure(output)) {
        yield* warn(tool.name, `skipped: its output schema cannot be checked here: ${output.failure}`)
        continue
      }
      taken.push(tool)
      if (screened.simplified.length > 0) {
        yield* warn(tool.name, `is checked here only in part, the server checks the rest: ${screened.simplified.join("; ")}`)
      }
      if (screened.outputSimplified.length > 0) {
        yield* warn(tool.name, `has its structured content checked here only in part: ${screened.outputSimplified.join("; ")}`)
      }
    }
    return taken
  })

/** The meta-schemas the compile of `schema` needs, one per turn (each once per process). */
const metaSchemas = (schema: JsonSchema): Effect.Effect<void> =>
  Effect.forEach(metaSchemaSteps(schema), (step) => Effect.andThen(yieldToEventLoop, Effect.sync(step)), { discard: true })

/**
 * The check of an output schema (`outputCheckOf`), compiled in a turn of its own after its
 * meta-schemas, unless it was compiled already. A listing prepares the checks of its tools, so
 * a call finds its tool's compiled; one that comes before its listing was taken prepares it.
 */
export const prepareOutputCheck = (schema: JsonSchema): Effect.Effect<OutputCheck> =>
  Effect.suspend(() => {
    const known = knownOutputCheck(schema)
    if (known !== undefined) return Effect.succeed(known)
    return metaSchemas(schema).pipe(
      Effect.andThen(yieldToEventLoop),
      Effect.andThen(Effect.sync(() => outputCheckOf(schema)))
    )
  })

/**
 * Lets the event loop run (timers, I/O) before the next tool of a listing is compiled: each
 * compile is one synchronous block, so a listing yields between its tools. An immediate set in
 * a timer or an I/O callback runs in the same turn, before any timer (what ran before it and
 * what runs after it add up): the second immediate is set in the check phase, so it runs in
 * the next turn, after the timers.
 */
export const yieldToEventLoop: Effect.Effect<void> = Effect.callback<void>((resume) => {
  let pending = setImmediate(() => {
    pending = setImmediate(() => resume(Effect.void))
  })
  return Effect.sync(() => clearImmediate(pending))
})
