/**
 * `read_csv`: the first rows of a CSV (or TSV) file as a Markdown table. The delimiter is
 * guessed, a header row detected; `columns` picks columns by name or 1-based number. Only the
 * file's first `DATA_FILE_MAX_BYTES` are read, and parsing stops one row after `limit`, so a
 * file of any size answers at once. The parser runs in a worker (`csvWorker.ts`), within limits
 * checked before it starts: a record wider than `READ_CSV_MAX_FIELDS` or longer than
 * `READ_CSV_MAX_RECORD_CHARS` is refused, and at most `READ_CSV_MAX_CELLS` cells are read.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { capOutput, headOf, OUTPUT_MAX_CHARS } from "../../shared/outputCap.js"
import { openFile } from "../../shared/safeFs.js"
import { columnNames, delimiterName, guessDelimiter, hasHeader } from "./csv.js"
import { parseCsvInWorker } from "./csvWorker.js"
import { readHead, sampleOf } from "./fileHead.js"
import { DATA_FILE_MAX_BYTES, readError } from "./files.js"

const TOOL = "read_csv"

/** The most rows one call returns. */
export const READ_CSV_MAX_ROWS = 1000

/** Columns shown when `columns` does not pick them. */
export const READ_CSV_MAX_COLUMNS = 50

/** A cell longer than this many characters is cut. */
export const READ_CSV_CELL_MAX_CHARS = 200

/** The widest record read; a wider one is refused before it is parsed. */
export const READ_CSV_MAX_FIELDS = 10_000

/** The longest record read, in characters; a longer one is refused before it is parsed. */
export const READ_CSV_MAX_RECORD_CHARS = 1024 * 1024

/**
 * The most cells parsed in one call: with wide rows, fewer rows are read. It bounds the
 * parser's work and what crosses back from its worker.
 */
export const READ_CSV_MAX_CELLS = 250_000

const fail = (message: string, cause?: unknown) => new ToolError({ tool: TOOL, message, cause })

/** A cell in a Markdown table: one line, `|` escaped, cut at `READ_CSV_CELL_MAX_CHARS`. */
const cell = (value: string): string => {
  const head = value.length > READ_CSV_CELL_MAX_CHARS ? `${headOf(value, READ_CSV_CELL_MAX_CHARS)}…` : value
  return head.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r\n|\r|\n/g, "\\n").replace(/[\u0000-\u001f\u007f]/g, " ")
}

/**
 * The Markdown table of the picked columns. Rows stop being added once the table is over
 * `OUTPUT_MAX_CHARS` (the answer is cut there anyway), so a wide file costs no more than that.
 */
const tableOf = (names: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>, picked: ReadonlyArray<number>) => {
  const lines = [`| ${picked.map((i) => cell(names[i] ?? "")).join(" | ")} |`, `| ${picked.map(() => "---").join(" | ")} |`]
  let size = lines[0]?.length ?? 0
  for (const row of rows) {
    if (size > OUTPUT_MAX_CHARS) break
    const line = `| ${picked.map((i) => cell(row[i] ?? "")).join(" | ")} |`
    lines.push(line)
    size += line.length + 1
  }
  return lines.join("\n")
}

/**
 * The indices of the requested columns: by name (exact, then ignoring case) or 1-based number.
 * The names are folded once, not once per requested column (a header has up to
 * `READ_CSV_MAX_FIELDS` names).
 */
const pick = (names: ReadonlyArray<string>, wanted: ReadonlyArray<string> | undefined): Result.Result<Array<number>, ToolError> => {
  if (wanted === undefined || wanted.length === 0) {
    return Result.succeed(names.slice(0, READ_CSV_MAX_COLUMNS).map((_, i) => i))
  }
  const lowered = names.map((n) => n.toLowerCase())
  const out: Array<number> = []
  for (const name of wanted) {
    let index = names.indexOf(name)
    // an exact match is also the only one ignoring case, or one of several (then kept)
    if (index < 0) {
      const lower = name.toLowerCase()
      const folded = lowered.flatMap((n, i) => (n === lower ? [i] : []))
      if (folded.length === 1) index = folded[0] ?? -1
    }
    // a header holds no number (hasHeader), and the names 1, 2, 3... are their own positions
    if (index < 0 && /^[1-9][0-9]*$/.test(name) && Number(name) <= names.length) index = Number(name) - 1
    if (index < 0) {
      const shown = names.slice(0, 50).map((n) => JSON.stringify(headOf(n, 60))).join(", ")
      return Result.fail(fail(
        `no column ${JSON.stringify(headOf(name, 60))}; the columns are ${shown}${names.length > 50 ? ", ..." : ""} ` +
          "(or give 1-based column numbers)"
      ))
    }
    out.push(index)
  }
  return Result.succeed(out)
}

export const readCsv = make(TOOL, {
  description: "Read the first rows of a CSV or TSV file as a Markdown table. The delimiter (comma, tab, semicolon or " +
    "pipe) is guessed and a header row detected; quoted fields may hold delimiters, quotes and line breaks. " +
    `Use columns to pick columns (names or 1-based numbers; the first ${READ_CSV_MAX_COLUMNS} are shown otherwise). ` +
    `At most ${READ_CSV_MAX_ROWS} rows per call; ` +
    `cells are cut at ${READ_CSV_CELL_MAX_CHARS} characters; only the first ${DATA_FILE_MAX_BYTES / 1024 / 1024} MiB ` +
    "of a file are read.",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({ description: "Path of the CSV file, relative to the workspace root" }),
    limit: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: READ_CSV_MAX_ROWS })).annotate({
      description: "How many data rows to return (the header row is not counted)"
    }).pipe(Schema.withDecodingDefaultType(Effect.succeed(50))),
    columns: Schema.optional(
      Schema.Array(Schema.String).check(Schema.isMaxLength(100)).annotate({
        description: "Columns to show, by header name or 1-based number, e.g. [\"name\", \"email\"]; the first 50 when omitted"
      })
    )
  }),
  readOnly: true,
  tags: ["data", "ported"],
  timeout: "30 seconds",
  handler: ({ columns, filepath, limit }) =>
    Effect.gen(function*() {
      // the bytes go to the parser's worker undecoded: decoding 10 MiB here would block
      const head = yield* Effect.scoped(Effect.flatMap(openFile(filepath), (file) => readHead(file, DATA_FILE_MAX_BYTES)))
        .pipe(Effect.mapError(readError(TOOL)))
      const shown = yield* Effect.flatMap(Workspace, (ws) => ws.display(filepath))
      const capped = head.cut

      const delimiter = guessDelimiter(sampleOf(head), NodePath.extname(filepath).toLowerCase() === ".tsv" ? "\t" : ",")
      const parsed = yield* Effect.result(parseCsvInWorker(head, delimiter, {
        to: limit + 2,
        maxFields: READ_CSV_MAX_FIELDS,
        maxRecordChars: READ_CSV_MAX_RECORD_CHARS,
        maxCells: READ_CSV_MAX_CELLS
      }))
      if (Result.isFailure(parsed)) {
        const where = capped ? ` (only the first ${DATA_FILE_MAX_BYTES} bytes of the file were read)` : ""
        const instead = parsed.failure.reason === "too-wide" || parsed.failure.reason === "too-long"
          ? "; read_csv reads records of at most " +
            `${READ_CSV_MAX_FIELDS} fields and ${READ_CSV_MAX_RECORD_CHARS} characters (read_lines shows the text)`
          : ""
        return yield* fail(`${parsed.failure.message}${instead}${where}`, parsed.failure)
      }
      const { blank, records, stoppedAtCells } = parsed.success
      if (blank) return `${shown}: the file is empty (no rows)`
      const header = hasHeader(records)
      let data = header ? records.slice(1) : records
      // the read stopped inside the file: the last record read may be cut; a stop at the cell limit
      // is at the end of a whole record
      if (capped && !stoppedAtCells && data.length <= limit) data = data.slice(0, -1)
      const rows = data.slice(0, limit)
      const more = data.length > limit || capped || stoppedAtCells
      const names = columnNames(records, header)
      const picked = pick(names, columns)
      if (Result.isFailure(picked)) return yield* picked.failure

      const summary = [
        `${shown}: delimiter ${delimiterName(delimiter)}`,
        header ? "header row detected" : "no header row (columns numbered from 1)",
        `${names.length} columns${
          picked.success.length < names.length
            ? ` (${picked.success.length} shown${columns === undefined || columns.length === 0 ? "; pick others with columns" : ""})`
            : ""
        }`,
        rows.length === 0
          ? "no data rows"
          : stoppedAtCells && rows.length < limit
          ? `rows 1-${rows.length} shown, then the limit of ${READ_CSV_MAX_CELLS} cells read per call was reached ` +
            "(use read_lines for the rest)"
          : capped && rows.length < limit
          ? `rows 1-${rows.length} shown, then the ${DATA_FILE_MAX_BYTES / 1024 / 1024} MiB read limit was reached ` +
            "(use read_lines for the rest)"
          : more
          ? `rows 1-${rows.length} shown, more follow (raise limit, at most ${READ_CSV_MAX_ROWS}, or use read_lines for the rest)`
          : `${rows.length} rows`
      ].join(", ")
      return capOutput(`${summary}\n${tableOf(names, rows, picked.success)}`, {
        atLine: true,
        rest: "lower limit or pick fewer columns"
      })
    })
})
