/**
 * Validation of call arguments against a raw JSON Schema (an MCP server's `inputSchema`),
 * with ajv, compiled once per tool.
 *
 * The schema comes from a server we may not trust, so the validator is built to be safe to
 * run on our side: `pattern` and `patternProperties` run on a linear-time engine (re2js),
 * never on a backtracking one; remote `$ref`s are never fetched (they fail the compile);
 * formats are not checked (the server checks them); ajv logs nothing. What ajv compiles is
 * a budgeted copy of the schema (`schemaBudget.ts`), and what a validator does for one call
 * is metered (`validationWork.ts`): neither a schema nor arguments can hold the event loop.
 *
 * @since 0.1.0
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv"
import { Ajv2019 } from "ajv/dist/2019.js"
import { Ajv2020 } from "ajv/dist/2020.js"
import { RE2JS } from "re2js"
import type { ArgumentIssue } from "../../domain/errors.js"
import type { JsonSchema } from "../../domain/ToolSpec.js"
import { budgetSchema, type SchemaBudget } from "./schemaBudget.js"
import { metered, ValidationWorkExceeded, workKeyword } from "./validationWork.js"

/** Most issues listed for one call; the rest are counted. */
const MAX_ISSUES = 20

/**
 * Most cost of one schema (`budgetSchema`: each schema, keyword value and enum or `required`
 * member counts). ajv turns a schema into code synchronously, measured at 0.05–0.1 ms per
 * unit: a schema at the bound compiles in 25–50 ms; a real tool's schema costs tens to a few
 * hundred.
 */
export const MAX_SCHEMA_COST = 500

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
  // each referenced schema is one function, built once, however often it is referenced
  inlineRefs: false,
  logger: false,
  // ajv's optimizing pass over the generated code costs more compile time than it saves
  code: { regExp: linearRegExp, optimize: false }
}

/** One validator per draft, shared: `addUsedSchema: false` keeps tools' `$id`s from meeting. */
const draft07 = new Ajv(options).addKeyword(workKeyword)
const draft2019 = new Ajv2019(options).addKeyword(workKeyword)
const draft2020 = new Ajv2020(options).addKeyword(workKeyword)

/** A draft's engine, and the meta-schemas it checks each schema against. */
interface Engine {
  readonly ajv: Ajv | Ajv2019 | Ajv2020
  /** Their `$id`s: the vocabularies first, the draft's own meta-schema last. */
  readonly metaSchemas: ReadonlyArray<string>
}

/** The `$id`s of a draft's vocabularies under `base`, then its own. */
const vocabularies = (base: string, names: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...names.map((name) => `${base}/meta/${name}`),
  `${base}/schema`
]

const engines: ReadonlyArray<{ readonly dialect: string; readonly engine: Engine }> = [
  {
    dialect: "2020-12",
    engine: {
      ajv: draft2020,
      metaSchemas: vocabularies(
        "https://json-schema.org/draft/2020-12",
        ["core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "content"]
      )
    }
  },
  {
    dialect: "2019-09",
    engine: {
      ajv: draft2019,
      metaSchemas: vocabularies(
        "https://json-schema.org/draft/2019-09",
        ["core", "applicator", "validation", "meta-data", "format", "content"]
      )
    }
  }
]
const draft07Engine: Engine = { ajv: draft07, metaSchemas: ["http://json-schema.org/draft-07/schema"] }

const engineFor = (schema: JsonSchema): Engine => {
  // Stryker disable next-line StringLiteral: a text that names neither dialect reads as draft-07
  const dialect = typeof schema.$schema === "string" ? schema.$schema : ""
  return engines.find((e) => dialect.includes(e.dialect))?.engine ?? draft07Engine
}

/** The meta-schemas compiled so far (each once per process). */
const compiledMeta = new Set<string>()

/**
 * What is left to do before `schema` compiles without compiling a meta-schema first: one step
 * per meta-schema of its draft not compiled yet (none once they are). ajv checks each schema
 * against its draft's meta-schema and compiles that on first use, all at once: 15-80 ms for
 * draft-07, 50-300 ms for 2020-12 (its vocabularies with it) on a loaded machine. Run one step
 * per turn of the event loop (`takeListing` does): the largest (draft-07's, which is one
 * document) measured 15-25 ms there.
 */
export const metaSchemaSteps = (schema: JsonSchema): ReadonlyArray<() => void> => {
  const { ajv, metaSchemas } = engineFor(schema)
  return metaSchemas.filter((id) => !compiledMeta.has(id)).map((id) => () => {
    ajv.getSchema(id)
    compiledMeta.add(id)
  })
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
 * `schema` as checked and shown: a top-level object schema that says nothing of
 * `additionalProperties` refuses unknown properties, as native tools do.
 */
export const effectiveSchema = (schema: JsonSchema): JsonSchema =>
  "additionalProperties" in schema || "unevaluatedProperties" in schema ? schema : { ...schema, additionalProperties: false }

/** Runs a compiled validator within the work bound; a run past it is one issue. */
const runMetered = (
  compiled: ValidateFunction,
  args: unknown
): ReadonlyArray<ErrorObject> | ValidationWorkExceeded | "too deep" => {
  try {
    return metered(() => (compiled(args) ? [] : (compiled.errors ?? [])))
  } catch (error) {
    if (error instanceof ValidationWorkExceeded) return error
    // a schema that refers to itself without going into the arguments recurses until the stack ends
    if (error instanceof RangeError) return "too deep"
    throw error
  }
}

/**
 * The budgets `screenSchema` found within `MAX_SCHEMA_COST`, each waiting for the compile of
 * its schema (keyed by the schema object as it came, taken by that compile). A listing is
 * screened and then compiled, and measuring a schema twice (a 40,000-member enum is walked
 * whole) was a second block as long as the first. The schemas of a listing are the SDK's
 * fresh parse, changed by no one in between.
 */
const screened = new WeakMap<JsonSchema, SchemaBudget>()

/**
 * `budgetSchema` of what `schema` is checked as (`effectiveSchema`), kept for
 * `compileArgumentsValidator(schema)` when it is taken.
 */
export const screenSchema = (schema: JsonSchema, maxCost: number): SchemaBudget => {
  const budget = budgetSchema(effectiveSchema(schema), maxCost)
  // a budget found under a lower limit is the one the compile would find: it stopped nowhere
  if (budget.problem === undefined && budget.cost <= MAX_SCHEMA_COST) screened.set(schema, budget)
  return budget
}

/** The budget `screenSchema` left for `schema` (forgotten once given), else a new one. */
const budgetOf = (schema: JsonSchema, effective: JsonSchema): SchemaBudget => {
  const kept = screened.get(schema)
  screened.delete(schema)
  return kept ?? budgetSchema(effective, MAX_SCHEMA_COST)
}

/**
 * Compiles a validator for `schema` (throws when it cannot be checked here: a bad schema, a
 * `$ref` outside it, a cost past `MAX_SCHEMA_COST`, nesting past `MAX_SCHEMA_DEPTH`).
 * `effective` is `effectiveSchema(schema)` (what the proxy shows models); `simplified` names
 * what is left to the server to check.
 */
export const compileArgumentsValidator = (
  schema: JsonSchema
): { readonly validate: ArgumentsValidator; readonly effective: JsonSchema; readonly simplified: ReadonlyArray<string> } => {
  const effective = effectiveSchema(schema)
  const budget = budgetOf(schema, effective)
  if (budget.problem !== undefined) throw new Error(`the schema cannot be checked here: ${budget.problem}`)
  const compiled = engineFor(effective).ajv.compile(budget.schema)
  const validate: ArgumentsValidator = (args) => {
    const errors = runMetered(compiled, args)
    if (errors instanceof ValidationWorkExceeded) {
      return [{ path: [], message: `checking these arguments against the tool's schema takes more than ${errors.bound}` }]
    }
    if (errors === "too deep") return [{ path: [], message: "the tool's schema refers to itself too deeply to check these arguments" }]
    if (errors.length === 0) return undefined
    const issues = errors.slice(0, MAX_ISSUES).map(issueOf)
    if (errors.length > MAX_ISSUES) issues.push({ path: [], message: `and ${errors.length - MAX_ISSUES} more problems` })
    return issues
  }
  return { validate, effective, simplified: budget.simplified }
}
