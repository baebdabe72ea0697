/**
 * Validation against a raw JSON Schema from an MCP server, with ajv, compiled once per schema:
 * a call's arguments against a tool's `inputSchema`, its structured content against the tool's
 * `outputSchema` (the MCP specification: a client SHOULD check it).
 *
 * The schema comes from a server we may not trust, so the validator is built to be safe to
 * run on our side: `pattern` and `patternProperties` run on a linear-time engine (re2js),
 * never on a backtracking one; remote `$ref`s are never fetched (they fail the compile);
 * formats are not checked (the server checks them); ajv logs nothing. What ajv compiles is
 * a budgeted copy of the schema (`schemaBudget.ts`), and what a validator does for one value
 * is metered (`validationWork.ts`): neither a schema nor a value can hold the event loop.
 *
 * @since 0.1.0
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv"
import { Ajv2019 } from "ajv/dist/2019.js"
import { Ajv2020 } from "ajv/dist/2020.js"
import * as Data from "effect/Data"
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

/** Checks a value; `undefined` when it is valid, else every issue with its path. */
export type SchemaValidator = (value: unknown) => ReadonlyArray<ArgumentIssue> | undefined
/** Checks arguments (a `SchemaValidator` of a tool's input schema). */
export type ArgumentsValidator = SchemaValidator

/**
 * What a schema checks: a call's arguments (as `effectiveSchema` says: a top-level object
 * refuses unknown properties) or a call's structured content (the schema as it came).
 */
export type SchemaRole = "arguments" | "output"

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
  value: unknown
): ReadonlyArray<ErrorObject> | ValidationWorkExceeded | "too deep" => {
  try {
    return metered(() => (compiled(value) ? [] : (compiled.errors ?? [])))
  } catch (error) {
    if (error instanceof ValidationWorkExceeded) return error
    // a schema that refers to itself without going into the value recurses until the stack ends
    if (error instanceof RangeError) return "too deep"
    throw error
  }
}

/** How a validator of each role names what it could not check. */
const unchecked: Record<SchemaRole, { readonly tooLong: (bound: string) => string; readonly tooDeep: string }> = {
  arguments: {
    tooLong: (bound) => `checking these arguments against the tool's schema takes more than ${bound}`,
    tooDeep: "the tool's schema refers to itself too deeply to check these arguments"
  },
  output: {
    tooLong: (bound) => `checking it takes more than ${bound}`,
    tooDeep: "the output schema refers to itself too deeply to check it"
  }
}

/** `schema` as a validator of `role` checks it. */
const checkedAs = (schema: JsonSchema, role: SchemaRole): JsonSchema =>
  role === "arguments" ? effectiveSchema(schema) : schema

/**
 * The budgets `screenSchema` found within `MAX_SCHEMA_COST`, each waiting for the compile of
 * its schema (keyed by the schema object as it came, taken by that compile), one table per
 * role (an object screened as both is checked as two schemas). A listing is screened and then
 * compiled, and measuring a schema twice (a 40,000-member enum is walked whole) was a second
 * block as long as the first. The schemas of a listing are the SDK's fresh parse, changed by
 * no one in between.
 */
const screened: Record<SchemaRole, WeakMap<JsonSchema, SchemaBudget>> = { arguments: new WeakMap(), output: new WeakMap() }

/**
 * `budgetSchema` of what `schema` is checked as in `role` (default: arguments), kept for its
 * compile (`compileArgumentsValidator(schema)`, `compileOutputValidator(schema)`) when it is taken.
 */
export const screenSchema = (schema: JsonSchema, maxCost: number, role: SchemaRole = "arguments"): SchemaBudget => {
  const budget = budgetSchema(checkedAs(schema, role), maxCost)
  // a budget found under a lower limit is the one the compile would find: it stopped nowhere
  if (budget.problem === undefined && budget.cost <= MAX_SCHEMA_COST) screened[role].set(schema, budget)
  return budget
}

/** The budget `screenSchema` left for `schema` in `role` (forgotten once given), else a new one. */
const budgetOf = (schema: JsonSchema, role: SchemaRole, checked: JsonSchema): SchemaBudget => {
  const kept = screened[role].get(schema)
  screened[role].delete(schema)
  return kept ?? budgetSchema(checked, MAX_SCHEMA_COST)
}

/** A schema cannot be checked here (past a budget of `schemaBudget.ts`): nothing was compiled. */
export class SchemaUnchecked extends Data.TaggedError("SchemaUnchecked")<{ readonly problem: string }> {
  override get message(): string {
    return `the schema cannot be checked here: ${this.problem}`
  }
}

/** A compiled schema: its validator, what it checks, and what it leaves unchecked. */
export interface CompiledSchema {
  readonly validate: SchemaValidator
  /** What the validator checks (`effectiveSchema(schema)` for arguments: what the proxy shows models). */
  readonly effective: JsonSchema
  /** What is not checked here, in a few words each. */
  readonly simplified: ReadonlyArray<string>
}

/**
 * Compiles a validator of `role` for `schema`. Throws `SchemaUnchecked` for a `$ref` outside it,
 * a cost past `MAX_SCHEMA_COST` or nesting past `MAX_SCHEMA_DEPTH`, and ajv's error for a schema
 * that is not one.
 */
const compileValidator = (schema: JsonSchema, role: SchemaRole): CompiledSchema => {
  const effective = checkedAs(schema, role)
  const budget = budgetOf(schema, role, effective)
  if (budget.problem !== undefined) throw new SchemaUnchecked({ problem: budget.problem })
  const { ajv } = engineFor(effective)
  const compiled = ajv.compile(budget.schema)
  // ajv keeps each schema it compiled, keyed by the object, for ever: a copy is compiled once,
  // and a server that lists its tools again and again would otherwise fill the heap
  ajv.removeSchema(budget.schema)
  const texts = unchecked[role]
  const validate: SchemaValidator = (value) => {
    const errors = runMetered(compiled, value)
    if (errors instanceof ValidationWorkExceeded) return [{ path: [], message: texts.tooLong(errors.bound) }]
    if (errors === "too deep") return [{ path: [], message: texts.tooDeep }]
    if (errors.length === 0) return undefined
    const issues = errors.slice(0, MAX_ISSUES).map(issueOf)
    if (errors.length > MAX_ISSUES) issues.push({ path: [], message: `and ${errors.length - MAX_ISSUES} more problems` })
    return issues
  }
  return { validate, effective, simplified: budget.simplified }
}

/**
 * The validator of a tool's arguments (`compileValidator`). `effective` is what the proxy
 * shows models; `simplified` names what is left to the server to check.
 */
export const compileArgumentsValidator = (schema: JsonSchema): CompiledSchema => compileValidator(schema, "arguments")

/**
 * The validator of a tool's structured content (`compileValidator`), the schema as it came:
 * `simplified` names what of the server's answers is not checked here.
 */
export const compileOutputValidator = (schema: JsonSchema): CompiledSchema => compileValidator(schema, "output")
