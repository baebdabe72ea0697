/**
 * JSON, YAML and CSV read into plain data and written back, for `convert_format`. Every
 * reader bounds what it builds: JSON nesting (`parseJsonLocated`), YAML nesting before the
 * `yaml` parser sees the text (deep block or flow nesting makes it overflow its stack or
 * worse), YAML time and memory (it runs in a worker with a deadline, `yamlWorker.ts`), YAML
 * aliases (`maxAliasCount`), and the size and depth of the value that results.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as NodePath from "node:path"
import { DATA_JSON_MAX_DEPTH, parseJsonLocated } from "../../shared/jsonSyntax.js"
import { columnNames, guessDelimiter, hasHeader, parseRecords, stringifyRows } from "./csv.js"
import { kindOf } from "./jsonPointer.js"
import { parseYamlInWorker, stringifyYamlInWorker } from "./yamlWorker.js"

export const FORMATS = ["json", "yaml", "csv"] as const
export type Format = (typeof FORMATS)[number]

/** Most values (objects, arrays, scalars) a converted document may hold, aliases expanded. */
export const CONVERT_MAX_NODES = 1_000_000
/** Widest leading run of indentation and `- ? :` indicators accepted on a YAML line. */
export const YAML_MAX_INDENT = 512
/** Most columns of a CSV written from objects. */
export const CSV_MAX_COLUMNS = 1000

/** The format a file's extension names, if any. */
export const formatOfPath = (path: string): Format | undefined => {
  switch (NodePath.extname(path).toLowerCase()) {
    case ".json":
      return "json"
    case ".yaml":
    case ".yml":
      return "yaml"
    case ".csv":
    case ".tsv":
      return "csv"
    default:
      return undefined
  }
}

/**
 * Why a YAML text is nested too deeply to give to the parser, or `undefined`: a line whose
 * leading indentation and indicators (`- `, `? `, `: `) are wider than `YAML_MAX_INDENT`
 * (block nesting needs one more column per level), or flow brackets nested deeper than
 * `DATA_JSON_MAX_DEPTH`. Brackets are counted everywhere, in quoted text and comments too: a
 * quote cannot hide a bracket from the count (at worst a document with hundreds of unclosed
 * brackets in its text is refused). Linear.
 */
export const yamlNestingProblem = (text: string): string | undefined => {
  let depth = 0
  let lineStart = true
  let indent = 0
  // (its `<=` mutant is equivalent: charCodeAt past the end is NaN, which only ends the line start; left unmarked,
  // as a mark would also hide `>=`, which the tests detect)
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x0a) {
      lineStart = true
      indent = 0
      continue
    }
    if (lineStart) {
      // space, tab, "-", "?", ":"
      if (c === 0x20 || c === 0x09 || c === 0x2d || c === 0x3f || c === 0x3a) {
        if (++indent > YAML_MAX_INDENT) return `a line is indented or nested more than ${YAML_MAX_INDENT} columns deep`
        continue
      }
      lineStart = false
    }
    if (c === 0x5b || c === 0x7b) {
      if (++depth > DATA_JSON_MAX_DEPTH) return `brackets are nested more than ${DATA_JSON_MAX_DEPTH} deep`
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--
  }
  return undefined
}

/** Checks depth and size of a value without recursion (a YAML alias loop shows as depth). */
export const treeProblem = (value: unknown): string | undefined => {
  const stack: Array<readonly [unknown, number]> = [[value, 1]]
  let nodes = 0
  while (stack.length > 0) {
    const [v, depth] = stack.pop() ?? [null, 0]
    if (++nodes > CONVERT_MAX_NODES) return `the document holds more than ${CONVERT_MAX_NODES} values (aliases expanded)`
    if (typeof v !== "object" || v === null) continue
    if (depth > DATA_JSON_MAX_DEPTH) {
      return `the document is nested more than ${DATA_JSON_MAX_DEPTH} deep (or an alias refers to its own anchor)`
    }
    for (const child of Object.values(v)) stack.push([child, depth + 1])
  }
  return undefined
}

const parseYaml = (text: string): Effect.Effect<unknown, string> => {
  const nesting = yamlNestingProblem(text)
  return nesting === undefined ? parseYamlInWorker(text) : Effect.fail(`the YAML is nested too deeply: ${nesting}`)
}

const parseCsv = (text: string, path: string): Either.Either<unknown, string> => {
  const delimiter = guessDelimiter(text, NodePath.extname(path).toLowerCase() === ".tsv" ? "\t" : ",")
  return Either.map(
    Either.mapLeft(parseRecords(text, delimiter), (e) => e.message),
    (records) => {
      if (!hasHeader(records)) return records
      const names = columnNames(records, true)
      return records.slice(1).map((row) => Object.fromEntries(names.map((name, i) => [name, row[i] ?? ""])))
    }
  )
}

/** `text` (the file at `path`) read as `format`, checked to be a bounded tree. */
export const parseAs = (format: Format, text: string, path: string): Effect.Effect<unknown, string> => {
  const parsed = format === "json"
    ? Either.mapLeft(parseJsonLocated(text), (e) => e.message)
    : format === "yaml"
    ? parseYaml(text)
    : parseCsv(text, path)
  return Effect.flatMap(parsed, (value) => {
    const problem = treeProblem(value)
    return problem === undefined ? Effect.succeed(value) : Effect.fail(problem)
  })
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** A value as one CSV cell: text as it is, nested data as JSON, null as empty. */
const cellOf = (v: unknown): string =>
  typeof v === "string"
    ? v
    : v === null || v === undefined
    ? ""
    : typeof v === "object"
    ? JSON.stringify(v)
    : String(v)

/** Rows of CSV from an array of objects (columns in order of first appearance), arrays or scalars. */
const toCsv = (value: unknown): Either.Either<string, string> => {
  if (!Array.isArray(value)) {
    const keys = isRecord(value) ? ` (keys: ${Object.keys(value).slice(0, 10).join(", ")})` : ""
    return Either.left(
      `CSV needs a list of rows (an array of objects or of arrays); this document is ${
        kindOf(value) === "array" || kindOf(value) === "object" ? "an" : "a"
      } ${kindOf(value)}${keys}: convert the array inside it instead (read_json with a pointer shows it)`
    )
  }
  if (value.every(isRecord)) {
    const columns = new Set<string>()
    for (const row of value) {
      for (const key of Object.keys(row)) {
        columns.add(key)
        if (columns.size > CSV_MAX_COLUMNS) return Either.left(`the rows have more than ${CSV_MAX_COLUMNS} distinct keys`)
      }
    }
    const names = [...columns]
    return Either.right(stringifyRows(value.map((row) => names.map((n) => (Object.hasOwn(row, n) ? cellOf(row[n]) : ""))), names))
  }
  if (value.every(Array.isArray)) return Either.right(stringifyRows(value.map((row) => row.map(cellOf))))
  if (value.every((v) => typeof v !== "object" || v === null)) return Either.right(stringifyRows(value.map((v) => [cellOf(v)])))
  return Either.left("CSV needs rows of one kind: all objects, all arrays or all plain values; this array mixes them")
}

/** `value` written as `format`. */
export const serializeAs = (format: Format, value: unknown): Effect.Effect<string, string> =>
  format === "json"
    ? Effect.succeed(JSON.stringify(value, null, 2))
    : format === "yaml"
    ? stringifyYamlInWorker(value)
    : toCsv(value)
