/**
 * `read_json` and `query_json`: a JSON document (a workspace file, or a string) parsed with a
 * bound on its nesting, optionally narrowed by an RFC 6901 pointer, and pretty-printed. A
 * syntax error names its line and column; the answer is cut at `OUTPUT_MAX_CHARS` with a note
 * that a pointer selects a smaller part.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../define.js"
import { DATA_JSON_MAX_DEPTH, parseJsonLocated } from "../../shared/jsonSyntax.js"
import { capOutput, OUTPUT_MAX_CHARS } from "../../shared/outputCap.js"
import { DATA_FILE_MAX_BYTES, readTextFile } from "./files.js"
import { selectPointer } from "./jsonPointer.js"

const Pointer = Schema.String.annotations({
  description: "An RFC 6901 JSON pointer selecting a part of the document: \"\" for all of it, " +
    "\"/name\" for a key, \"/items/0\" for the first item of an array; write \"~1\" for \"/\" and \"~0\" for \"~\" inside a key"
})

/** Parses, selects and pretty-prints; every failure a `ToolError` of `tool`. */
const render = (tool: string, text: string, pointer: string | undefined): Effect.Effect<string, ToolError> => {
  const parsed = parseJsonLocated(text, DATA_JSON_MAX_DEPTH)
  if (Either.isLeft(parsed)) return Effect.fail(new ToolError({ tool, message: parsed.left.message, cause: parsed.left }))
  const selected = pointer === undefined ? Either.right(parsed.right) : selectPointer(parsed.right, pointer)
  if (Either.isLeft(selected)) return Effect.fail(new ToolError({ tool, message: selected.left.message }))
  return Effect.succeed(capOutput(JSON.stringify(selected.right, null, 2), {
    atLine: true,
    rest: "pass a pointer to select a smaller part, e.g. \"/items/0\""
  }))
}

/** `read_json`: a workspace JSON file, pretty-printed, optionally a part of it. */
export const readJson = make("read_json", {
  description: "Read a JSON file from the workspace and return it pretty-printed. Pass pointer (RFC 6901, e.g. " +
    "\"/dependencies\" or \"/items/0/name\") to return only that part. A syntax error names its line and column. " +
    `Files up to ${DATA_FILE_MAX_BYTES / 1024 / 1024} MiB, nested at most ${DATA_JSON_MAX_DEPTH} deep; ` +
    `the answer is cut at ${OUTPUT_MAX_CHARS} characters.`,
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotations({ description: "Path of the JSON file, relative to the workspace root" }),
    pointer: Schema.optional(Pointer)
  }),
  readOnly: true,
  tags: ["data", "ported"],
  timeout: "30 seconds",
  handler: ({ filepath, pointer }) =>
    Effect.flatMap(
      readTextFile("read_json", filepath, DATA_FILE_MAX_BYTES, "use read_lines to read it in parts"),
      (text) => render("read_json", text, pointer)
    )
})

/** `query_json`: the same pointer query over a JSON string. */
export const queryJson = make("query_json", {
  description: "Select a part of a JSON document given as a string with an RFC 6901 pointer (e.g. \"/users/0/email\"), " +
    "returned pretty-printed. A syntax error names its line and column. " +
    `Nested at most ${DATA_JSON_MAX_DEPTH} deep; the answer is cut at ${OUTPUT_MAX_CHARS} characters.`,
  parameters: Schema.Struct({
    json: Schema.String.annotations({ description: "The JSON document, as text" }),
    pointer: Pointer
  }),
  readOnly: true,
  tags: ["data", "ported"],
  timeout: "30 seconds",
  handler: ({ json, pointer }) => render("query_json", json, pointer)
})
