/**
 * A whole `convert_format` conversion (parse, check, write) in a worker thread with a deadline
 * and a heap cap (`shared/scriptWorker.ts`), so that none of it runs on the main thread. There
 * every step is a hazard on a 1 MiB source (measured on a loaded 2-core machine): `JSON.parse` of
 * a 1 MiB array of numbers 170 ms, walking its 512K values 1 s, csv-parse 2 s on a 1 MiB line of
 * `a,a,...`, csv-stringify 0.5 s for 512K rows, and `JSON.stringify` with indentation can make a
 * 1 MiB source into hundreds of MiB (deep nesting). The `yaml` package costs about 2 µs a
 * character and is quadratic on some inputs: 40,000 keys took 25 s with duplicate-key checks
 * on (so they are off: the last value wins, as with `JSON.parse`), 900 KB of anchors and
 * aliases 106 s. Aliases are expanded at most `maxAliasCount` times (the "billion laughs").
 * No timeout can stop a synchronous call; the worker is terminated at the deadline or when the
 * call is interrupted.
 *
 * Only the head of the result (`maxChars`, what one answer holds) and its length come back.
 * The host checks nesting before (`yamlNestingProblem`, `nestsDeeperThan`: deep nesting
 * overflows the parsers' stacks) and locates a JSON syntax error after.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { modulePath, runScriptWorker } from "../../shared/scriptWorker.js"
import { CSV_PARSE_SOURCE, type CsvAnswer, type CsvLimits } from "./csvWorker.js"

/** How long one conversion may take. */
export const CONVERT_DEADLINE: Duration.Input = "10 seconds"

/** The worker's heap cap. */
export const CONVERT_HEAP_MB = 256

/** What one conversion is asked to do. */
export interface ConvertJob {
  readonly from: "json" | "yaml" | "csv"
  readonly to: "json" | "yaml" | "csv"
  readonly text: string
  /** The delimiter of a CSV source. */
  readonly delimiter: string
  readonly csvLimits: CsvLimits
  /** Most values (aliases expanded) and nesting depth of the document. */
  readonly maxNodes: number
  readonly maxDepth: number
  /** Most columns of CSV written from objects. */
  readonly maxColumns: number
  /** How much of the result comes back. */
  readonly maxChars: number
}

/** What the worker answers. */
export type ConvertAnswer =
  /** `head` is the result, or its first `maxChars + 1` characters when `length` is more. */
  | { readonly ok: true; readonly head: string; readonly length: number }
  /** The source could not be read (`parse`) or not written as asked (`write`), and why. */
  | { readonly ok: false; readonly stage: "parse" | "write"; readonly message: string }
  /** `JSON.parse` refused the source: the host locates the error. */
  | { readonly ok: false; readonly stage: "json"; readonly message: string }
  /** The CSV source was refused. */
  | { readonly ok: false; readonly stage: "csv"; readonly csv: Exclude<CsvAnswer, { readonly ok: true }> }

const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads")
const YAML = require(workerData.modules.yaml)
const { parse } = require(workerData.modules.csvParse)
const { stringify } = require(workerData.modules.csvStringify)
const { job } = workerData
${CSV_PARSE_SOURCE}
class Refused { constructor(stage, message) { this.stage = stage; this.message = message } }
const headOf = (text, max) =>
  text.length <= max ? text : text.slice(0, (text.charCodeAt(max - 1) & 0xfc00) === 0xd800 ? max - 1 : max)
const isRecord = (v) => typeof v === "object" && v !== null && !Array.isArray(v)
const kindOf = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v)
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/
// a header: every field non-empty, no two alike, none a number (as csv.ts's hasHeader)
const hasHeader = (first) => {
  if (first === undefined || first.length === 0) return false
  const names = first.map((f) => f.trim())
  return names.every((n) => n !== "" && !NUMBER.test(n)) && new Set(names).size === names.length
}
const fromCsv = () => {
  const parsed = parseCsv(parse, job.text, job.delimiter, job.csvLimits)
  if (!parsed.ok) throw Object.assign(new Refused("csv", ""), { csv: parsed })
  if (parsed.stoppedAtCells) throw new Refused("parse", "the CSV holds more than " + job.csvLimits.maxCells + " cells")
  const records = parsed.records
  if (!hasHeader(records[0])) return records
  const width = records.reduce((max, r) => Math.max(max, r.length), 0)
  const header = records[0].map((f) => f.trim())
  const names = Array.from({ length: width }, (_, i) => header[i] ?? String(i + 1))
  return records.slice(1).map((row) => Object.fromEntries(names.map((name, i) => [name, row[i] ?? ""])))
}
// a syntax error, or an alias expanded too often (toJS throws), is "not valid YAML"
const fromYaml = () => {
  const invalid = (message) => new Refused("parse", "not valid YAML: " + headOf(message, 600).trimEnd())
  let read
  try {
    const docs = YAML.parseAllDocuments(job.text, { prettyErrors: true, uniqueKeys: false, logLevel: "error" })
    const all = Array.isArray(docs) ? docs : [docs]
    const failed = all.find((doc) => doc.errors.length > 0)
    read = failed === undefined ? { values: all.map((doc) => doc.toJS({ maxAliasCount: 100 })) } : { error: failed.errors[0].message }
  } catch (error) {
    throw invalid(error instanceof Error ? error.message : String(error))
  }
  if (read.error !== undefined) throw invalid(read.error)
  return read.values.length === 1 ? read.values[0] : read.values
}
const fromJson = () => {
  try {
    return JSON.parse(job.text)
  } catch (error) {
    throw new Refused("json", error instanceof Error ? error.message : String(error))
  }
}
// depth and size of the value, without recursion (a YAML alias loop shows as depth)
const treeProblem = (value) => {
  const stack = [[value, 1]]
  let nodes = 0
  while (stack.length > 0) {
    const [v, depth] = stack.pop()
    if (++nodes > job.maxNodes) return "the document holds more than " + job.maxNodes + " values (aliases expanded)"
    if (typeof v !== "object" || v === null) continue
    if (depth > job.maxDepth) {
      return "the document is nested more than " + job.maxDepth + " deep (or an alias refers to its own anchor)"
    }
    for (const child of Object.values(v)) stack.push([child, depth + 1])
  }
  return undefined
}
const cellOf = (v) =>
  typeof v === "string" ? v : v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v)
const rows = (rows, header) => stringify(header === undefined ? rows : [header, ...rows], { record_delimiter: "unix" })
const toCsv = (value) => {
  if (!Array.isArray(value)) {
    const keys = isRecord(value) ? " (keys: " + Object.keys(value).slice(0, 10).join(", ") + ")" : ""
    const kind = kindOf(value)
    throw new Refused("write", "CSV needs a list of rows (an array of objects or of arrays); this document is " +
      (kind === "array" || kind === "object" ? "an" : "a") + " " + kind + keys +
      ": convert the array inside it instead (read_json with a pointer shows it)")
  }
  if (value.every(isRecord)) {
    const columns = new Set()
    for (const row of value) {
      for (const key of Object.keys(row)) {
        columns.add(key)
        if (columns.size > job.maxColumns) throw new Refused("write", "the rows have more than " + job.maxColumns + " distinct keys")
      }
    }
    const names = [...columns]
    return rows(value.map((row) => names.map((n) => (Object.hasOwn(row, n) ? cellOf(row[n]) : ""))), names)
  }
  if (value.every(Array.isArray)) return rows(value.map((row) => row.map(cellOf)))
  if (value.every((v) => typeof v !== "object" || v === null)) return rows(value.map((v) => [cellOf(v)]))
  throw new Refused("write", "CSV needs rows of one kind: all objects, all arrays or all plain values; this array mixes them")
}
const toYaml = (value) => {
  try {
    return YAML.stringify(value, { aliasDuplicateObjects: false })
  } catch (error) {
    throw new Refused("write", "cannot write YAML: " + headOf(error instanceof Error ? error.message : String(error), 600))
  }
}
const answer = (() => {
  try {
    const value = job.from === "json" ? fromJson() : job.from === "yaml" ? fromYaml() : fromCsv()
    const problem = treeProblem(value)
    if (problem !== undefined) throw new Refused("parse", problem)
    const out = job.to === "json" ? JSON.stringify(value, null, 2) : job.to === "yaml" ? toYaml(value) : toCsv(value)
    return { ok: true, head: out.length <= job.maxChars ? out : out.slice(0, job.maxChars + 1), length: out.length }
  } catch (error) {
    if (error instanceof Refused) return { ok: false, ...error }
    return { ok: false, stage: "parse", message: error instanceof Error ? error.message : String(error) }
  }
})()
parentPort.postMessage(answer)
`

const isAnswer = (u: unknown): u is ConvertAnswer =>
  typeof u === "object" && u !== null && "ok" in u && (u.ok === true ? "head" in u && "length" in u : "stage" in u)

/** Runs `job` in a worker; fails with why the worker did not answer (too slow, out of memory). */
export const convertInWorker = (
  job: ConvertJob,
  deadline: Duration.Input = CONVERT_DEADLINE
): Effect.Effect<ConvertAnswer, string> =>
  runScriptWorker(WORKER_SOURCE, {
    modules: {
      yaml: modulePath("yaml"),
      csvParse: modulePath("csv-parse/sync"),
      csvStringify: modulePath("csv-stringify/sync")
    },
    job
  }, { deadline, heapMb: CONVERT_HEAP_MB, what: "the conversion" }).pipe(
    Effect.mapError((failure) => failure.message),
    Effect.flatMap((answer) =>
      isAnswer(answer) ? Effect.succeed(answer) : Effect.die(new Error("the conversion worker answered an unknown shape"))
    )
  )
