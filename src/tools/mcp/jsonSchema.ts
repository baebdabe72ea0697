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
 * Patterns on re2js. A pattern it cannot run (a lookahead, a back-reference) is not checked
 * here; the server still validates its own arguments. ajv keys its cache of patterns by
 * `toString()`, so each one says what it is.
 */
const linearRegExp = Object.assign(
  (pattern: string, flags: string) => {
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
 * remote `$ref`). A top-level object schema that says nothing of `additionalProperties`
 * refuses unknown properties, as native tools do; `effective` is the schema with that made
 * explicit (what the proxy shows models).
 */
export const compileArgumentsValidator = (
  schema: JsonSchema
): { readonly validate: ArgumentsValidator; readonly effective: JsonSchema } => {
  const effective: JsonSchema = "additionalProperties" in schema || "unevaluatedProperties" in schema
    ? schema
    : { ...schema, additionalProperties: false }
  const compiled = engineFor(effective).compile(effective)
  const validate: ArgumentsValidator = (args) => {
    if (compiled(args)) return undefined
    const errors = compiled.errors ?? []
    const issues = errors.slice(0, MAX_ISSUES).map(issueOf)
    if (errors.length > MAX_ISSUES) issues.push({ path: [], message: `and ${errors.length - MAX_ISSUES} more problems` })
    return issues.length > 0 ? issues : [{ path: [], message: "does not match the tool's input schema" }]
  }
  return { validate, effective }
}
