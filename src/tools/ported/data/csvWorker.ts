/**
 * CSV records parsed by `csv-parse` in a worker thread with a deadline (`shared/scriptWorker.ts`).
 * On the main thread the parser is a hazard: it reads about 2 MB/s of plain rows, 0.5 MB/s of a
 * long field or of one-letter fields (measured: 13 s for a 10 MiB line of `a,a,a,...`, 5 s for
 * one 10 MiB field), and no timeout can stop a synchronous call.
 *
 * Before the parser runs, the worker scans the text once (quotes followed, as the parser does)
 * and refuses a record wider than `maxFields` or longer than `maxRecordChars`, and stops before
 * the record that would bring the cells past `maxCells`; the parser then reads only the records
 * wanted. So the work and what comes back across the thread boundary (at most `maxCells`
 * strings) are bounded before parsing starts.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { headOf } from "../../shared/outputCap.js"
import { modulePath, runScriptWorker } from "../../shared/scriptWorker.js"

/** How long parsing one text may take. */
export const CSV_DEADLINE: Duration.Input = "20 seconds"

/** The worker's heap cap. */
export const CSV_HEAP_MB = 256

/** The text is not CSV, or not one this call reads (a record too wide or too long). */
export class CsvRejected extends Data.TaggedError("CsvRejected")<{
  readonly reason: "syntax" | "too-wide" | "too-long" | "parser"
  readonly message: string
  /** The line the refused record starts on (1-based), for `too-wide` and `too-long`. */
  readonly line?: number
  readonly cause?: unknown
}> {}

/** What one parse may read. */
export interface CsvLimits {
  /** Records wanted (the parser stops after them); all when undefined. */
  readonly to?: number
  /** Most fields of one record; a wider one is refused. */
  readonly maxFields: number
  /** Most characters of one record; a longer one is refused. */
  readonly maxRecordChars: number
  /** Most cells in all: reading stops before the record that would pass it. */
  readonly maxCells: number
}

/** Records read, and whether `maxCells` stopped the reading before `to` (or the end). */
export interface CsvRecords {
  readonly records: ReadonlyArray<ReadonlyArray<string>>
  readonly stoppedAtCells: boolean
  /** The text holds nothing but white space. */
  readonly blank: boolean
}

/**
 * What is parsed: text, or UTF-8 bytes (`cut`: they stop inside the file) that the worker
 * decodes. With `move`, the bytes' whole buffer is moved to the worker, not copied, and is empty
 * afterwards: only for a buffer of their own (as `readHead` gives), never a pooled `Buffer`.
 */
export type CsvSource = string | { readonly bytes: Uint8Array; readonly cut: boolean; readonly move?: boolean }

/**
 * Worker source (CommonJS) defining `parseCsv(parse, text, delimiter, limits)`, given csv-parse's
 * sync `parse`: the scan, then the parser on the records it let through. Its answer is a
 * `CsvAnswer`. Shared with the conversion worker (`convertWorker.ts`).
 */
export const CSV_PARSE_SOURCE = `
// where the text is cut (before the record that would pass \`maxCells\`), or why a record is
// refused; a quote toggles quoting (a doubled quote toggles twice), and outside quotes the first
// of LF, CRLF or CR met ends each record, as the parser detects it (an empty line is no record)
const scanCsv = (text, delimiter, limits) => {
  const d = delimiter.charCodeAt(0)
  const to = limits.to === undefined ? Infinity : limits.to
  let records = 0, fields = 1, chars = 0, cells = 0, empty = true, quoted = false, start = 0, line = 1, startLine = 1
  let ends = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10) line++
    if (!quoted && (c === 10 || c === 13) && !(c === 13 && text.charCodeAt(i + 1) === 10)) {
      if (ends === 0) ends = c
    }
    if (!quoted && c === 13 && ends === 10) continue
    if (!quoted && c === ends) {
      if (!empty) {
        cells += fields
        if (cells > limits.maxCells) return { end: start, stoppedAtCells: true }
        // the parser stops after \`to\` records by itself (the text is cut only where the cells would pass
        // their limit: a record boundary the scan and the parser could place apart in mixed line ends)
        if (++records >= to) return { end: text.length, stoppedAtCells: false }
      }
      fields = 1
      chars = 0
      empty = true
      start = i + 1
      startLine = line
      continue
    }
    empty = false
    if (c === 34) quoted = !quoted
    else if (!quoted && c === d && ++fields > limits.maxFields) return { refused: "too-wide", line: startLine }
    if (++chars > limits.maxRecordChars) return { refused: "too-long", line: startLine }
  }
  if (!empty && cells + fields > limits.maxCells) return { end: start, stoppedAtCells: true }
  return { end: text.length, stoppedAtCells: false }
}
// the records of \`text\` within \`limits\`, or why not
const parseCsv = (parse, text, delimiter, limits) => {
  const scanned = scanCsv(text, delimiter, limits)
  if (scanned.refused !== undefined) return { ok: false, reason: scanned.refused, line: scanned.line }
  try {
    const records = parse(text.slice(0, scanned.end), {
      delimiter,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: limits.maxRecordChars,
      ...(limits.to === undefined ? {} : { to: limits.to })
    })
    return { ok: true, records, stoppedAtCells: scanned.stoppedAtCells }
  } catch (error) {
    return { ok: false, reason: "syntax", message: error instanceof Error ? error.message : String(error) }
  }
}
`

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads")
const { parse } = require(workerData.module)
const { delimiter, limits, source } = workerData
${CSV_PARSE_SOURCE}
// bytes are decoded here (a BOM dropped; a character the cut splits dropped too)
const text = typeof source === "string" ? source : new TextDecoder("utf-8").decode(source.bytes, { stream: source.cut })
parentPort.postMessage(text.trim() === "" ? { ok: true, records: [], stoppedAtCells: false, blank: true } : parseCsv(parse, text, delimiter, limits))
`

/** What the worker's `parseCsv` answers. */
export type CsvAnswer =
  | {
    readonly ok: true
    readonly records: ReadonlyArray<ReadonlyArray<string>>
    readonly stoppedAtCells: boolean
    readonly blank?: boolean
  }
  | { readonly ok: false; readonly reason: "too-wide" | "too-long"; readonly line: number }
  | { readonly ok: false; readonly reason: "syntax"; readonly message: string }

const isAnswer = (u: unknown): u is CsvAnswer =>
  typeof u === "object" && u !== null && "ok" in u &&
  (u.ok === true ? "records" in u && Array.isArray(u.records) : "reason" in u)

/** The `CsvRejected` of a refused answer. */
export const rejection = (answer: Exclude<CsvAnswer, { readonly ok: true }>, limits: CsvLimits): CsvRejected =>
  answer.reason === "syntax"
    ? new CsvRejected({ reason: "syntax", message: `not valid CSV: ${headOf(answer.message, 300)}` })
    : answer.reason === "too-wide"
    ? new CsvRejected({
      reason: "too-wide",
      line: answer.line,
      message: `the record on line ${answer.line} has more than ${limits.maxFields} fields`
    })
    : new CsvRejected({
      reason: "too-long",
      line: answer.line,
      message: `the record on line ${answer.line} is longer than ${limits.maxRecordChars} characters (or a quote is left open)`
    })

/**
 * The records of `source` (arrays of fields; rows may differ in length), read within `limits`;
 * fails with `CsvRejected` when the text is not CSV, a record is over a limit, or the parser
 * does not finish within `deadline`.
 */
export const parseCsvInWorker = (
  source: CsvSource,
  delimiter: string,
  limits: CsvLimits,
  deadline: Duration.Input = CSV_DEADLINE
): Effect.Effect<CsvRecords, CsvRejected> =>
  runScriptWorker(WORKER_SOURCE, { module: modulePath("csv-parse/sync"), source, delimiter, limits }, {
    deadline,
    heapMb: CSV_HEAP_MB,
    what: "the CSV parser",
    ...(typeof source !== "string" && source.move === true && source.bytes.buffer instanceof ArrayBuffer
      ? { transfer: [source.bytes.buffer] }
      : {})
  }).pipe(
    Effect.mapError((failure) => new CsvRejected({ reason: "parser", message: failure.message, cause: failure })),
    Effect.flatMap((answer) =>
      !isAnswer(answer)
        ? Effect.die(new Error("the CSV worker answered an unknown shape"))
        : answer.ok
        ? Effect.succeed({ records: answer.records, stoppedAtCells: answer.stoppedAtCells, blank: answer.blank === true })
        : Effect.fail(rejection(answer, limits))
    )
  )
