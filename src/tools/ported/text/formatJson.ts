/**
 * `format_json`: validates JSON text and pretty-prints it. An error names the line and column
 * of the first problem and shows that line with a caret (`shared/jsonSyntax.ts`). A text past a
 * few KiB is parsed and printed in a worker thread (`data/jsonRender.ts`, shared with
 * `query_json`), so that no call holds the event loop.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { make } from "../../defineBuiltin.js"
import { DATA_JSON_MAX_DEPTH } from "../../shared/jsonSyntax.js"
import { OUTPUT_MAX_CHARS } from "../../shared/outputCap.js"
import { renderJson } from "../data/jsonRender.js"

const TOOL = "format_json"

export const formatJson = make(TOOL, {
  description: "Check that a text is valid JSON and return it pretty-printed with the given indent (0 for one compact " +
    "line). Invalid JSON gets an error naming the line and column of the first problem. " +
    `Nested at most ${DATA_JSON_MAX_DEPTH} deep; the answer is cut at ${OUTPUT_MAX_CHARS} characters.`,
  parameters: Schema.Struct({
    text: Schema.String.annotate({ description: "The JSON text" }),
    indent: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 8 })).annotate({
      description: "Spaces per level; 0 writes one compact line"
    }).pipe(Schema.withDecodingDefaultType(Effect.succeed(2)))
  }),
  readOnly: true,
  tags: ["text", "ported"],
  timeout: "30 seconds",
  handler: ({ indent, text }) =>
    renderJson(text, {
      pointer: undefined,
      indent,
      cap: { atLine: indent > 0, rest: "use query_json with a pointer to format a part" }
    }).pipe(Effect.mapError((error) => new ToolError({ tool: TOOL, message: error.message, cause: error })))
})
