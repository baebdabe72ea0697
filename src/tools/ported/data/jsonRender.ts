/**
 * A JSON document parsed with a bound on its nesting, optionally narrowed by an RFC 6901
 * pointer, and printed with a cap: what `read_json`, `query_json` and `format_json` answer.
 * A small document is done on the main thread; any other in a worker (`jsonWorker.ts`), with
 * the same answers and messages, so that no call holds the event loop (issue 47 item 6).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import {
  DATA_JSON_MAX_DEPTH,
  EXCERPT_AROUND,
  type JsonSyntaxError,
  parseJsonLocated,
  syntaxErrorAt,
  tooDeepError,
  unlocatedSyntaxError
} from "../../shared/jsonSyntax.js"
import { capHead, capOutput, type CapOptions, OUTPUT_MAX_CHARS } from "../../shared/outputCap.js"
import type { ScriptWorkerFailed } from "../../shared/scriptWorker.js"
import { decodeUtf8 } from "../../shared/text.js"
import { parsePointer, POINTER_KEYS_SHOWN, type PointerError, selectPointer, stopError } from "./jsonPointer.js"
import { type JsonSource, runJsonWorker } from "./jsonWorker.js"

/**
 * The largest document done on the main thread, in characters times the indent (at least 1).
 * The pretty print is the costly step there: a document nested 256 deep grows about a hundred
 * times per level of indent, measured 8-13 ms a KiB at indent 8 (430 ms for 32 KiB); so 16 Ki
 * (8 KiB at indent 2, 2 KiB at indent 8, 16 KiB compact) stays under 30 ms on a loaded machine,
 * and a plain document of that size takes about 1 ms, where a worker costs 50-70 ms to start.
 */
export const MAIN_THREAD_BUDGET = 16 * 1024

/** The printed document would be longer than a string can be. */
export class JsonPrintFailed extends Data.TaggedError("JsonPrintFailed")<{ readonly message: string }> {}

/** Why a document got no answer. */
export type JsonRenderError = JsonSyntaxError | PointerError | JsonPrintFailed | ScriptWorkerFailed

/** How a document is answered. */
export interface RenderOptions {
  /** The pointer to the part printed; the whole document when undefined. */
  readonly pointer: string | undefined
  /** Spaces per level; 0 prints one compact line. */
  readonly indent: number
  readonly cap: CapOptions
}

/** On the main thread: parse, select, print, cap. */
export const renderOnMainThread = (text: string, options: RenderOptions): Result.Result<string, JsonSyntaxError | PointerError> =>
  Result.flatMap(parseJsonLocated(text, DATA_JSON_MAX_DEPTH), (document) =>
    Result.map(
      options.pointer === undefined ? Result.succeed(document) : selectPointer(document, options.pointer),
      (selected) => capOutput(JSON.stringify(selected, null, options.indent), options.cap)
    ))

/** In the worker: the same steps, the messages written here from what it sends back. */
export const renderInWorker = (source: JsonSource, options: RenderOptions): Effect.Effect<string, JsonRenderError> =>
  Effect.gen(function*() {
    // a malformed pointer is told after the document is found to be JSON, as on the main thread
    const tokens: Result.Result<ReadonlyArray<string>, PointerError> = options.pointer === undefined
      ? Result.succeed([])
      : parsePointer(options.pointer)
    const answer = yield* runJsonWorker(source, {
      maxDepth: DATA_JSON_MAX_DEPTH,
      tokens: Result.isSuccess(tokens) ? tokens.success : null,
      indent: options.indent,
      maxChars: options.cap.maxChars ?? OUTPUT_MAX_CHARS,
      excerpt: EXCERPT_AROUND,
      keysShown: POINTER_KEYS_SHOWN
    })
    if (answer.ok) return Result.isFailure(tokens) ? yield* tokens.failure : capHead(answer.head, answer.length, options.cap)
    switch (answer.reason) {
      case "too-deep":
        return yield* tooDeepError(DATA_JSON_MAX_DEPTH)
      case "syntax": {
        const at = answer.located
        return yield* at === null
          ? unlocatedSyntaxError(new SyntaxError(answer.message))
          : syntaxErrorAt(at.problem, at.window, at.offset, at.lineStart)
      }
      case "pointer":
        return yield* stopError(Result.getOrElse(tokens, () => []), answer.stop)
      case "print":
        return yield* new JsonPrintFailed({
          message: `the JSON is too long to print whole (${answer.message}); ${options.cap.rest}`
        })
    }
  })

/**
 * The answer for a document given as text or as a file's UTF-8 bytes (their buffer their own,
 * moved to the worker): on the main thread when it is within `MAIN_THREAD_BUDGET`, else in
 * the worker.
 */
export const renderJson = (source: JsonSource, options: RenderOptions): Effect.Effect<string, JsonRenderError> =>
  Effect.suspend(() => {
    const size = typeof source === "string" ? source.length : source.bytes.length
    if (size * Math.max(1, options.indent) > MAIN_THREAD_BUDGET) return renderInWorker(source, options)
    return Effect.fromResult(renderOnMainThread(typeof source === "string" ? source : decodeUtf8(source.bytes), options))
  })
