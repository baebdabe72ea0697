/**
 * `count_lines`: the lines, words, characters and bytes of a UTF-8 text file, counted as a
 * stream (one chunk held at a time) up to `COUNT_LINES_MAX_BYTES`.
 *
 * Lines: line endings, plus a last line without one. Words: runs of characters between ASCII
 * white space (as `wc -w` counts them). Characters: Unicode code points.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../defineBuiltin.js"
import { openFile } from "../../shared/safeFs.js"
import { linesOf, NEWLINE, readChunks } from "./chunks.js"
import { fileFailure, TAGS } from "./common.js"

/** Most bytes one call counts; a larger file is counted in its first part, and says so. */
export const COUNT_LINES_MAX_BYTES = 512 * 1024 * 1024

const TOOL = "count_lines"

/** The running counts. */
interface Counts {
  lines: number
  words: number
  characters: number
  bytes: number
  inWord: boolean
  last: number
}

/** Adds one chunk to the counts. */
const add = (counts: Counts, bytes: Uint8Array): void => {
  let { characters, inWord, lines, words } = counts
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0
    if (b === NEWLINE) lines++
    // space, \t, \n, \v, \f, \r
    if (b === 32 || (b >= 9 && b <= 13)) inWord = false
    else if (!inWord) {
      words++
      inWord = true
    }
    // every byte that is not a UTF-8 continuation byte starts a character
    if ((b & 0xc0) !== 0x80) characters++
  }
  counts.lines = lines
  counts.words = words
  counts.characters = characters
  counts.inWord = inWord
  counts.bytes += bytes.length
  counts.last = bytes[bytes.length - 1] ?? counts.last
}

/** `count_lines` counting at most `maxBytes` (the tool's is `COUNT_LINES_MAX_BYTES`; a test's is smaller). */
export const makeCountLines = (maxBytes: number) =>
  make(TOOL, {
    description: "Count the lines, words and characters of a UTF-8 text file. Lines include a last line without " +
      "a line ending; words are separated by white space; characters are Unicode characters.",
    parameters: Schema.Struct({
      filepath: WorkspacePath.annotate({ description: "Path of the file, relative to the workspace root" })
    }),
    readOnly: true,
    tags: TAGS,
    timeout: "30 seconds",
    handler: ({ filepath }) =>
      Effect.scoped(Effect.gen(function*() {
        const file = yield* openFile(filepath)
        const counts: Counts = { lines: 0, words: 0, characters: 0, bytes: 0, inWord: false, last: NEWLINE }
        const read = yield* readChunks(file, maxBytes, (bytes) => {
          add(counts, bytes)
          return true
        })
        // a text cut at the cap ends mid-line: that line is not counted
        const lines = read.complete ? linesOf(counts.lines, counts.last) : counts.lines
        const partial = read.complete
          ? ""
          : `\n(counted in the first ${read.read} bytes of ${file.size}: a call counts at most ${maxBytes} bytes)`
        return `lines: ${lines}\nwords: ${counts.words}\ncharacters: ${counts.characters}\nbytes: ${counts.bytes}${partial}`
      })).pipe(Effect.mapError(fileFailure(TOOL)))
  })

export const countLines = makeCountLines(COUNT_LINES_MAX_BYTES)
