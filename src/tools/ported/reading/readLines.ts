/**
 * `read_lines`: a range of a text file's lines, numbered. The file is read as a stream from a
 * checked descriptor: the lines before `start_line` are counted and dropped, the lines asked
 * for are kept up to `READ_LINES_MAX_BYTES`, and the lines after them are counted within
 * `READ_LINES_COUNT_BYTES`, so that the closing note can say how many there are.
 *
 * ```
 * 10: first line shown
 * 11: second line shown
 * (lines 10-11 of 57; continue with start_line=12)
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../defineBuiltin.js"
import { openFile } from "../../shared/safeFs.js"
import { decodeUtf8, decodeUtf8Prefix } from "../../shared/text.js"
import { linesOf, NEWLINE, readChunks } from "./chunks.js"
import { failure, fileFailure, TAGS } from "./common.js"

/** Lines shown when `end_line` is not given. */
export const READ_LINES_DEFAULT = 200
/** Most lines one call shows. */
export const READ_LINES_MAX_LINES = 2000
/** Most bytes of text one call shows. */
export const READ_LINES_MAX_BYTES = 256 * 1024
/** Most bytes read after the range to count the lines that follow. */
export const READ_LINES_COUNT_BYTES = 64 * 1024 * 1024

const TOOL = "read_lines"

/** What a pass over the file found. */
interface Found {
  /** The bytes of the lines kept (from the start of `start_line`). */
  readonly kept: Buffer
  /** The byte cap was reached inside this line (1-based), else 0. */
  readonly cutInLine: number
  /** Lines in the file: exact when `complete`, else at least. */
  readonly lines: number
  readonly complete: boolean
}

/** Reads the file once: keeps lines `start..end`, counts the rest within the budget. */
const collect = (filepath: string, start: number, end: number) =>
  Effect.scoped(Effect.gen(function*() {
    const file = yield* openFile(filepath)
    const kept: Array<Buffer> = []
    let keptBytes = 0
    let cutInLine = 0
    let newlines = 0
    let last = NEWLINE
    let countedFrom = -1
    const read = yield* readChunks(file, Number.POSITIVE_INFINITY, (bytes) => {
      let pos = 0
      while (pos < bytes.length) {
        const line = newlines + 1
        const nl = bytes.indexOf(NEWLINE, pos)
        const segmentEnd = nl === -1 ? bytes.length : nl + 1
        if (line >= start && line <= end && cutInLine === 0) {
          const room = READ_LINES_MAX_BYTES - keptBytes
          const take = Math.min(room, segmentEnd - pos)
          kept.push(Buffer.from(bytes.subarray(pos, pos + take)))
          keptBytes += take
          if (take < segmentEnd - pos) cutInLine = line
        }
        if (nl === -1) break
        newlines++
        pos = nl + 1
      }
      last = bytes[bytes.length - 1] ?? last
      // past the range: count on, within the budget
      if (newlines + 1 > end || cutInLine > 0) {
        if (countedFrom === -1) countedFrom = 0
        countedFrom += bytes.length
        return countedFrom < READ_LINES_COUNT_BYTES
      }
      return true
    })
    const lines = linesOf(newlines, last)
    return { kept: Buffer.concat(kept), cutInLine, lines, complete: read.complete } satisfies Found
  }))

/**
 * The numbered lines and the closing note; `asked` is the `end_line` given, `end` the last line
 * this call may show.
 */
const render = (found: Found, start: number, asked: number | undefined, end: number): string => {
  const text = found.cutInLine > 0 ? decodeUtf8Prefix(found.kept, found.kept.length) : decodeUtf8(found.kept)
  const lines = text.split("\n")
  if (lines.at(-1) === "") lines.pop()
  const lastShown = start + lines.length - 1
  const width = String(lastShown).length
  const body = lines
    .map((line, i) => `${String(start + i).padStart(width)}: ${line.endsWith("\r") ? line.slice(0, -1) : line}`)
    .join("\n")
  const range = `lines ${start}-${lastShown}${found.complete ? ` of ${found.lines}` : ""}`
  const atEnd = found.complete && lastShown >= found.lines
  if (found.cutInLine > 0) {
    const more = found.complete && found.cutInLine >= found.lines ? "" : `; continue with start_line=${found.cutInLine + 1}`
    return `${body}…\n(${range}: line ${found.cutInLine} is cut, a call returns at most ${READ_LINES_MAX_BYTES} bytes${more})`
  }
  if (atEnd) return asked !== undefined && lastShown < asked ? `${body}\n(the file ends at line ${found.lines})` : body
  const count = found.complete ? "" : `; the file has at least ${found.lines} lines`
  const capped = asked !== undefined && asked > end ? `; a call shows at most ${READ_LINES_MAX_LINES} lines` : ""
  return `${body}\n(${range}${count}${capped}; continue with start_line=${lastShown + 1})`
}

export const readLines = make(TOOL, {
  description: "Read a range of lines of a UTF-8 text file, numbered. Lines are counted from 1 and shown without " +
    `their line endings. Without end_line, ${READ_LINES_DEFAULT} lines are shown; at most ${READ_LINES_MAX_LINES} ` +
    `lines or ${READ_LINES_MAX_BYTES / 1024} KiB per call. The closing note says where to continue.`,
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({ description: "Path of the file, relative to the workspace root" }),
    start_line: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
      description: "First line to show (1 is the first line of the file)"
    }),
    end_line: Schema.optional(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
        description: `Last line to show, inclusive (default: start_line + ${READ_LINES_DEFAULT - 1}); ` +
          "past the end of the file, the file's last line"
      })
    )
  }),
  readOnly: true,
  tags: TAGS,
  timeout: "30 seconds",
  handler: ({ end_line, filepath, start_line }) =>
    Effect.gen(function*() {
      if (end_line !== undefined && end_line < start_line) {
        return yield* failure(TOOL, `end_line (${end_line}) is before start_line (${start_line})`)
      }
      const asked = end_line ?? start_line + READ_LINES_DEFAULT - 1
      const end = Math.min(asked, start_line + READ_LINES_MAX_LINES - 1)
      const found = yield* collect(filepath, start_line, end).pipe(Effect.mapError(fileFailure(TOOL)))
      if (found.lines === 0) return "(the file is empty)"
      if (start_line > found.lines) {
        return yield* failure(
          TOOL,
          `start_line ${start_line} is past the end of the file: "${filepath}" has ${found.lines} ${
            found.lines === 1 ? "line" : "lines"
          }`
        )
      }
      return render(found, start_line, end_line, end)
    })
})
