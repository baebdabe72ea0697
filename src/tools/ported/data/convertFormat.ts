/**
 * `convert_format`: a JSON, YAML or CSV workspace file converted to another of the three (or
 * rewritten in its own), returned as text. The source format comes from the extension (a file
 * without a known one is JSON when it starts with `{` or `[`). CSV with a header row becomes a
 * list of objects, without one a list of arrays; fields stay text. Writing CSV needs a list of
 * objects (their keys become the header), of arrays or of plain values.
 *
 * The conversion runs in a worker with a deadline (`convertWorker.ts`), so a call never blocks
 * the host; sources are limited to `CONVERT_MAX_BYTES`, and the answer to `OUTPUT_MAX_CHARS`
 * (only that much of the result comes back from the worker).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { headOf, OUTPUT_MAX_CHARS } from "../../shared/outputCap.js"
import { readTextFile } from "./files.js"
import { convertText, type Format, formatOfPath, FORMATS } from "./formats.js"

const TOOL = "convert_format"

/** The largest source file converted. */
export const CONVERT_MAX_BYTES = 1024 * 1024

const fail = (message: string) => new ToolError({ tool: TOOL, message })

const REST = "the whole conversion is too long for one answer; convert a smaller file"

/**
 * The answer from the result's head and its whole length, cut as `capOutput` cuts (after the
 * last line break in the second half of `OUTPUT_MAX_CHARS`), which needs the whole text.
 */
const answerOf = (head: string, length: number): string => {
  if (length <= OUTPUT_MAX_CHARS) return head
  let kept = headOf(head, OUTPUT_MAX_CHARS)
  const newline = kept.lastIndexOf("\n")
  if (newline >= kept.length / 2) kept = kept.slice(0, newline)
  return `${kept}\n... (cut after ${kept.length} of ${length} characters; ${REST})`
}

export const convertFormat = make(TOOL, {
  description: "Convert a JSON, YAML (.yaml/.yml) or CSV (.csv/.tsv) file of the workspace to json, yaml or csv, " +
    "returned as text (nothing is written). The source format is taken from the file extension. CSV with a header " +
    "row becomes a list of objects, otherwise a list of arrays; to write CSV the data must be a list of objects, " +
    `arrays or plain values. Sources up to ${CONVERT_MAX_BYTES / 1024} KiB; the answer is cut at ${OUTPUT_MAX_CHARS} characters.`,
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({ description: "Path of the file to convert, relative to the workspace root" }),
    to: Schema.Literals(FORMATS).annotate({ description: "The format to convert to: json, yaml or csv" })
  }),
  readOnly: true,
  tags: ["data", "ported"],
  timeout: "30 seconds",
  handler: ({ filepath, to }) =>
    Effect.gen(function*() {
      const text = yield* readTextFile(
        TOOL,
        filepath,
        CONVERT_MAX_BYTES,
        "convert_format reads files up to 1 MiB; read_json with a pointer or read_csv with a limit reads parts of larger ones"
      )
      const shown = yield* Effect.flatMap(Workspace, (ws) => ws.display(filepath))
      const from: Format | undefined = formatOfPath(filepath) ?? (/^\s*[[{]/.test(text.slice(0, 1024)) ? "json" : undefined)
      if (from === undefined) {
        return yield* fail(`cannot tell the format of "${shown}" from its name: use a .json, .yaml, .yml, .csv or .tsv file`)
      }
      const out = yield* convertText(from, to, text, filepath, OUTPUT_MAX_CHARS).pipe(
        Effect.mapError((failure) =>
          fail(failure.stage === "parse" ? `"${shown}": ${failure.message}` : `cannot convert "${shown}" to ${to}: ${failure.message}`)
        )
      )
      return answerOf(out.head, out.length)
    })
})
