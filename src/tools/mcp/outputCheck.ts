/**
 * A tool's `outputSchema`, and the check of each call's structured content against it (the
 * MCP specification: a client SHOULD check it). The SDK client's `listTools` would compile
 * every output schema with its own ajv, unbudgeted, and its `callTool` would check the content
 * unbounded (uniqueItems over 20,000 objects: seconds of blocked event loop), so the bridge
 * uses neither: an output schema is screened and compiled as an input schema is
 * (`listingLimits.ts`, `jsonSchema.ts`), and the content is checked within the work bound
 * (`validationWork.ts`).
 *
 * Content that is not checked in full (past the work bound) is refused, never passed on
 * unchecked; so is an answer without structured content, unless it is an error answer (as
 * the SDK's `callTool` does). What the budgeted copy of a schema leaves out (a huge enum's
 * members, uniqueItems over objects) is not checked: the listing's warning names it.
 *
 * @since 0.6.0
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"
import type { ArgumentIssue } from "../../domain/errors.js"
import type { JsonSchema } from "../../domain/ToolSpec.js"
import { messageOf } from "../definition.js"
import type { CallResult } from "./callRequest.js"
import { compileOutputValidator, type CompiledSchema, SchemaUnchecked } from "./jsonSchema.js"

/**
 * One issue as a line: `a.0.b: must be number`.
 *
 * @internal
 */
export const issueText = (issue: ArgumentIssue): string =>
  issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message

/**
 * A call's answer does not pass its tool's output schema (the call itself went through).
 *
 * @since 0.6.0
 * @category errors
 */
export class McpOutputMismatch extends Data.TaggedError("McpOutputMismatch")<{
  readonly server: string
  readonly tool: string
  /** What is wrong, in a few words. */
  readonly reason: string
  /** Each mismatch, with where it is in the structured content (none when there is no content). */
  readonly issues: ReadonlyArray<ArgumentIssue>
}> {
  override get message(): string {
    const issues = this.issues.map(issueText).join("; ")
    return `MCP server "${this.server}", tool "${this.tool}": ${this.reason}${issues === "" ? "" : `: ${issues}`}`
  }
}

/**
 * An output schema compiled (its validator), or why it cannot be checked here.
 *
 * @internal
 */
export type OutputCheck = Result.Result<CompiledSchema, string>

/** The output schemas compiled so far, each once (a listing's schemas are fresh objects). */
const compiled = new WeakMap<JsonSchema, OutputCheck>()

/**
 * The check of `schema` when it was compiled already.
 *
 * @internal
 */
export const knownOutputCheck = (schema: JsonSchema): OutputCheck | undefined => compiled.get(schema)

/**
 * The check of `schema`, compiled now (one synchronous block, at most `MAX_SCHEMA_COST`: run it
 * in a turn of its own, after the meta-schema steps, as `prepareOutputCheck` does) unless it was.
 *
 * @internal
 */
export const outputCheckOf = (schema: JsonSchema): OutputCheck => {
  const known = compiled.get(schema)
  if (known !== undefined) return known
  let check: OutputCheck
  try {
    check = Result.succeed(compileOutputValidator(schema))
  } catch (error) {
    check = Result.fail(error instanceof SchemaUnchecked ? error.problem : messageOf(error))
  }
  compiled.set(schema, check)
  return check
}

/**
 * `result` checked against its tool's output schema: `undefined` when it passes, else why not.
 * An error answer is passed as it is (its content is the error, not the tool's output).
 *
 * @internal
 */
export const outputMismatch = (
  server: string,
  tool: string,
  check: CompiledSchema,
  result: CallResult
): McpOutputMismatch | undefined => {
  if (result.isError === true) return undefined
  if (result.structuredContent === undefined) {
    return new McpOutputMismatch({
      server,
      tool,
      reason: "it has an output schema but did not return structured content",
      issues: []
    })
  }
  const issues = check.validate(result.structuredContent)
  return issues === undefined
    ? undefined
    : new McpOutputMismatch({ server, tool, reason: "its structured content does not pass its output schema", issues })
}
