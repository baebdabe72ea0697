/**
 * `read_json` and `query_json`: a JSON document (a workspace file, or a string) parsed with a
 * bound on its nesting, optionally narrowed by an RFC 6901 pointer, and pretty-printed. A
 * syntax error names its line and column; the answer is cut at `OUTPUT_MAX_CHARS` with a note
 * that a pointer selects a smaller part. A document past a few KiB is done in a worker thread
 * (`jsonRender.ts`), so that no call holds the event loop.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { type ResolvedPath, WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../defineBuiltin.js"
import { DATA_JSON_MAX_DEPTH } from "../../shared/jsonSyntax.js"
import { OUTPUT_MAX_CHARS } from "../../shared/outputCap.js"
import { openFile } from "../../shared/safeFs.js"
import { FileTooLarge } from "../../shared/safeFsError.js"
import { readHead } from "./fileHead.js"
import { DATA_FILE_MAX_BYTES, readError } from "./files.js"
import { type JsonRenderError, renderJson, type RenderOptions } from "./jsonRender.js"

const Pointer = Schema.String.annotate({
  description: "An RFC 6901 JSON pointer selecting a part of the document: \"\" for all of it, " +
    "\"/name\" for a key, \"/items/0\" for the first item of an array; write \"~1\" for \"/\" and \"~0\" for \"~\" inside a key"
})

/** What `read_json` and `query_json` print: two spaces a level, cut with a hint to select less. */
const printed = (pointer: string | undefined): RenderOptions => ({
  pointer,
  indent: 2,
  cap: { atLine: true, rest: "pass a pointer to select a smaller part, e.g. \"/items/0\"" }
})

/** Every failure a `ToolError` of `tool`; a pointer error without a cause, as it always was. */
const toolError = (tool: string) => (error: JsonRenderError): ToolError =>
  error._tag === "PointerError"
    ? new ToolError({ tool, message: error.message })
    : new ToolError({ tool, message: error.message, cause: error })

/**
 * The file's bytes, undecoded (`readHead`: decoding 10 MiB here would hold the event loop; the
 * worker decodes them), or `FileTooLarge` over `DATA_FILE_MAX_BYTES`, as `readText` says it.
 */
const readJsonFile = (path: ResolvedPath): Effect.Effect<Uint8Array, ToolError> =>
  Effect.scoped(Effect.gen(function*() {
    const file = yield* openFile(path)
    const tooLarge = (size: number) => new FileTooLarge({ path: file.path, size, limit: DATA_FILE_MAX_BYTES })
    if (file.size > DATA_FILE_MAX_BYTES) return yield* tooLarge(file.size)
    const head = yield* readHead(file, DATA_FILE_MAX_BYTES)
    // it grew past the limit since it was opened
    if (head.cut) return yield* tooLarge(Math.max(file.size, DATA_FILE_MAX_BYTES + 1))
    return head.bytes
  })).pipe(Effect.mapError(readError("read_json", "use read_lines to read it in parts")))

/** `read_json`: a workspace JSON file, pretty-printed, optionally a part of it. */
export const readJson = make("read_json", {
  description: "Read a JSON file from the workspace and return it pretty-printed. Pass pointer (RFC 6901, e.g. " +
    "\"/dependencies\" or \"/items/0/name\") to return only that part. A syntax error names its line and column. " +
    `Files up to ${DATA_FILE_MAX_BYTES / 1024 / 1024} MiB, nested at most ${DATA_JSON_MAX_DEPTH} deep; ` +
    `the answer is cut at ${OUTPUT_MAX_CHARS} characters.`,
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({ description: "Path of the JSON file, relative to the workspace root" }),
    pointer: Schema.optional(Pointer)
  }),
  readOnly: true,
  tags: ["data", "ported"],
  timeout: "30 seconds",
  handler: ({ filepath, pointer }) =>
    Effect.flatMap(readJsonFile(filepath), (bytes) =>
      renderJson({ bytes }, printed(pointer)).pipe(Effect.mapError(toolError("read_json"))))
})

/** `query_json`: the same pointer query over a JSON string. */
export const queryJson = make("query_json", {
  description: "Select a part of a JSON document given as a string with an RFC 6901 pointer (e.g. \"/users/0/email\"), " +
    "returned pretty-printed. A syntax error names its line and column. " +
    `Nested at most ${DATA_JSON_MAX_DEPTH} deep; the answer is cut at ${OUTPUT_MAX_CHARS} characters.`,
  parameters: Schema.Struct({
    json: Schema.String.annotate({ description: "The JSON document, as text" }),
    pointer: Pointer
  }),
  readOnly: true,
  tags: ["data", "ported"],
  timeout: "30 seconds",
  handler: ({ json, pointer }) => renderJson(json, printed(pointer)).pipe(Effect.mapError(toolError("query_json")))
})
