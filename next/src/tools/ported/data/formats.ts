/**
 * JSON, YAML and CSV converted into each other, for `convert_format`. The conversion runs in a
 * worker (`convertWorker.ts`) with a deadline and a heap cap; what it reads is bounded: JSON and
 * YAML nesting are checked here before a parser sees the text (deep block or flow nesting makes
 * the parsers overflow their stacks or worse), YAML aliases are expanded at most
 * `maxAliasCount` times, a CSV record has at most `CSV_MAX_FIELDS` fields, and the value that
 * results at most `CONVERT_MAX_NODES` values and `DATA_JSON_MAX_DEPTH` levels (checked in the
 * worker before anything is written).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as NodePath from "node:path"
import { nestsDeeperThan } from "../../shared/boundedJson.js"
import { DATA_JSON_MAX_DEPTH, syntaxErrorOf } from "../../shared/jsonSyntax.js"
import { guessDelimiter } from "./csv.js"
import { type ConvertJob, convertInWorker } from "./convertWorker.js"
import { type CsvLimits, rejection } from "./csvWorker.js"

export const FORMATS = ["json", "yaml", "csv"] as const
export type Format = (typeof FORMATS)[number]

/** Most values (objects, arrays, scalars) a converted document may hold, aliases expanded. */
export const CONVERT_MAX_NODES = 1_000_000
/** Widest leading run of indentation and `- ? :` indicators accepted on a YAML line. */
export const YAML_MAX_INDENT = 512
/** Most columns of a CSV written from objects. */
export const CSV_MAX_COLUMNS = 1000
/** Most fields of one record of a CSV source. */
export const CSV_MAX_FIELDS = 10_000

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

/** Why a conversion failed: reading the source (`parse`) or writing the result (`write`). */
export class ConvertFailed extends Data.TaggedError("ConvertFailed")<{
  readonly stage: "parse" | "write"
  readonly message: string
}> {}

/** How much of a CSV source a conversion reads. */
const CSV_LIMITS: CsvLimits = {
  maxFields: CSV_MAX_FIELDS,
  maxRecordChars: Number.MAX_SAFE_INTEGER,
  maxCells: CONVERT_MAX_NODES
}

const parseFailure = (message: string) => new ConvertFailed({ stage: "parse", message })

/** The worker's job for converting `text` from `from` to `to`, within this module's limits. */
export const convertJob = (from: Format, to: Format, text: string, delimiter: string, maxChars: number): ConvertJob => ({
  from,
  to,
  text,
  delimiter,
  csvLimits: CSV_LIMITS,
  maxNodes: CONVERT_MAX_NODES,
  maxDepth: DATA_JSON_MAX_DEPTH,
  maxColumns: CSV_MAX_COLUMNS,
  maxChars
})

/**
 * `text` (the file at `path`) read as `from` and written as `to`, in a worker
 * (`convertWorker.ts`): the result's first `maxChars + 1` characters and its length. Nesting is
 * checked here first, linearly; a JSON syntax error is located here after.
 */
export const convertText = (
  from: Format,
  to: Format,
  text: string,
  path: string,
  maxChars: number
): Effect.Effect<{ readonly head: string; readonly length: number }, ConvertFailed> =>
  Effect.gen(function*() {
    if (from === "json" && nestsDeeperThan(text, DATA_JSON_MAX_DEPTH)) {
      return yield* parseFailure(`the JSON is nested deeper than ${DATA_JSON_MAX_DEPTH} levels`)
    }
    const nesting = from === "yaml" ? yamlNestingProblem(text) : undefined
    if (nesting !== undefined) return yield* parseFailure(`the YAML is nested too deeply: ${nesting}`)
    const delimiter = from === "csv" ? guessDelimiter(text, NodePath.extname(path).toLowerCase() === ".tsv" ? "\t" : ",") : ","
    const answer = yield* convertInWorker(convertJob(from, to, text, delimiter, maxChars)).pipe(Effect.mapError(parseFailure))
    if (answer.ok) return { head: answer.head, length: answer.length }
    switch (answer.stage) {
      case "json":
        return yield* parseFailure(syntaxErrorOf(text, new SyntaxError(answer.message)).message)
      case "csv":
        return yield* parseFailure(rejection(answer.csv, CSV_LIMITS).message)
      default:
        return yield* new ConvertFailed({ stage: answer.stage, message: answer.message })
    }
  })
