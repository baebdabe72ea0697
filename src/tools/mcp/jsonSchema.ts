/**
 * Validation of call arguments against a raw JSON Schema (an MCP server's `inputSchema`),
 * with ajv, compiled once per tool.
 *
 * The schema comes from a server we may not trust, so the validator is built to be safe to
 * run on our side: `pattern` and `patternProperties` run on a linear-time engine (re2js),
 * never on a backtracking one; remote `$ref`s are never fetched (they fail the compile);
 * formats are not checked (the server checks them); ajv logs nothing.
 *
 * @since 0.1.0
 */
import { Ajv, type ErrorObject, type Options } from "ajv"
import { Ajv2019 } from "ajv/dist/2019.js"
import { Ajv2020 } from "ajv/dist/2020.js"
import { RE2JS } from "re2js"
import type { ArgumentIssue } from "../../domain/errors.js"
import type { JsonSchema } from "../../domain/ToolSpec.js"

/** Most issues listed for one call; the rest are counted. */
const MAX_ISSUES = 20

/**
 * Most objects and arrays in one schema. ajv compiles a schema into code, about 0.1 ms of
 * blocking work per object (500 levels deep: seconds); a real tool's schema holds tens to a
 * few hundred.
 */
export const MAX_SCHEMA_NODES = 2000
/** Deepest nesting of objects and arrays in one schema. */
export const MAX_SCHEMA_DEPTH = 64

/** How big a schema is, as far as it was looked at. */
export interface SchemaSize {
  /** Objects and arrays counted (at most `maxNodes + 1`). */
  readonly nodes: number
  /** Why it is too big to compile, when it is. */
  readonly problem: string | undefined
}

/**
 * Counts the objects and arrays of `schema` (itself included), without recursion and
 * stopping at the first one past `maxNodes` or `MAX_SCHEMA_DEPTH`: a hostile schema costs at
 * most `maxNodes` objects' worth of looking.
 */
export const schemaSize = (schema: unknown, maxNodes: number = MAX_SCHEMA_NODES): SchemaSize => {
  if (typeof schema !== "object" || schema === null) return { nodes: 0, problem: undefined }
  const tooMany = (nodes: number): SchemaSize => ({ nodes, problem: `it holds more than ${maxNodes} objects and arrays` })
  if (maxNodes < 1) return tooMany(1)
  const stack: Array<{ readonly value: object; readonly depth: number }> = [{ value: schema, depth: 1 }]
  let nodes = 1
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.depth > MAX_SCHEMA_DEPTH) return { nodes, problem: `it is nested deeper than ${MAX_SCHEMA_DEPTH} levels` }
    for (const child of Object.values(next.value)) {
      if (typeof child !== "object" || child === null) continue
      nodes += 1
      if (nodes > maxNodes) return tooMany(nodes)
      stack.push({ value: child, depth: next.depth + 1 })
    }
  }
  return { nodes, problem: undefined }
}

/**
 * Patterns on re2js. A pattern it cannot run (a lookahead, a back-reference) is not checked
 * here; the server still validates its own arguments. ajv keys its cache of patterns by
 * `toString()`, so each one says what it is (an object's default, `[object Object]`, would
 * make every pattern the first one).
 */
const linearRegExp = Object.assign(
  (pattern: string, flags: string) => {
    // Stryker disable next-line ArrowFunction: with no key ajv keys the pattern by the object itself: the same checks, only not shared
    const toString = () => `/${pattern}/${flags}`
    try {
      const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern))
      return { test: (s: string) => compiled.test(s), toString }
    } catch {
      return { test: (_s: string) => true, toString }
    }
  },
  { code: "re2js" }
)

const options: Options = {
  strict: false,
  allErrors: true,
  validateFormats: false,
  addUsedSchema: false,
  logger: false,
  code: { regExp: linearRegExp }
}

/** One validator per draft, shared: `addUsedSchema: false` keeps tools' `$id`s from meeting. */
const draft07 = new Ajv(options)
const draft2019 = new Ajv2019(options)
const draft2020 = new Ajv2020(options)

const engineFor = (schema: JsonSchema) => {
  // Stryker disable next-line StringLiteral: a text that names neither dialect reads as draft-07
  const dialect = typeof schema.$schema === "string" ? schema.$schema : ""
  if (dialect.includes("2020-12")) return draft2020
  if (dialect.includes("2019-09")) return draft2019
  return draft07
}

/** Checks arguments; `undefined` when they are valid, else every issue with its path. */
export type ArgumentsValidator = (args: unknown) => ReadonlyArray<ArgumentIssue> | undefined

/** `/a/0/b` as `["a", 0, "b"]` (JSON Pointer escapes undone). */
const pathOf = (pointer: string): Array<PropertyKey> =>
  pointer === ""
    ? []
    : pointer.slice(1).split("/").map((part) => {
      const key = part.replaceAll("~1", "/").replaceAll("~0", "~")
      return /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : key
    })

const issueOf = (error: ErrorObject): ArgumentIssue => {
  const path = pathOf(error.instancePath)
  const params: Record<string, unknown> = error.params
  if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    return { path: [...path, params.additionalProperty], message: "unknown property" }
  }
  if (error.keyword === "required" && typeof params.missingProperty === "string") {
    return { path: [...path, params.missingProperty], message: "is missing" }
  }
  const message = (error.message ?? error.keyword).slice(0, 200)
  return { path, message }
}

/**
 * Compiles a validator for `schema` (throws when ajv cannot compile it: a bad schema, a
 * remote `$ref`, one past `MAX_SCHEMA_NODES` or `MAX_SCHEMA_DEPTH`). A top-level object schema
 * that says nothing of `additionalProperties` refuses unknown properties, as native tools do;
 * `effective` is the schema with that made explicit (what the proxy shows models).
 */
export const compileArgumentsValidator = (
  schema: JsonSchema
): { readonly validate: ArgumentsValidator; readonly effective: JsonSchema } => {
  const { problem } = schemaSize(schema)
  if (problem !== undefined) throw new Error(`the schema is too big to check arguments with: ${problem}`)
  const effective: JsonSchema = "additionalProperties" in schema || "unevaluatedProperties" in schema
    ? schema
    : { ...schema, additionalProperties: false }
  const compiled = engineFor(effective).compile(effective)
  const validate: ArgumentsValidator = (args) => {
    if (compiled(args)) return undefined
    const errors = compiled.errors ?? []
    const issues = errors.slice(0, MAX_ISSUES).map(issueOf)
    if (errors.length > MAX_ISSUES) issues.push({ path: [], message: `and ${errors.length - MAX_ISSUES} more problems` })
    // (its `>= 0` and `true` mutants are equivalent, ajv reports at least one error for a failed check (the
    // fallback is for its types); left unmarked, as a mark would also hide `<= 0`, which jsonSchema.test kills)
    return issues.length > 0 ? issues : [{ path: [], message: "does not match the tool's input schema" }]
  }
  return { validate, effective }
}
