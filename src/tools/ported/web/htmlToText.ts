/**
 * HTML to readable text with `html-to-text`, in a worker thread with a deadline and a memory
 * cap. The conversion is synchronous and its parser (htmlparser2) is quadratic in the nesting
 * depth: measured here, 200,000 nested `<div>`s (2 MB) took 98 s, and a flat 3 MB page 3.3 s.
 * On the main thread that would stall every fiber, and a tool timeout could not stop it; in
 * a worker, the deadline terminates it. One short-lived worker per conversion (no pool: a
 * page is fetched far more slowly than a worker starts).
 *
 * The worker (`shared/scriptWorker.ts`) is a CommonJS script given as source, which loads
 * `html-to-text` from the path this module resolves, so it needs no file of its own next to a
 * bundle.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { modulePath, runScriptWorker, ScriptWorkerFailed } from "../../shared/scriptWorker.js"

/** How long a conversion may take. */
export const HTML_TO_TEXT_DEADLINE = Duration.seconds(10)

/** The worker's heap cap. */
export const HTML_TO_TEXT_HEAP_MB = 256

// Links are made absolute with the URL parser (html-to-text's own baseUrl only prefixes "/paths").
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads")
const { convert } = require(workerData.module)
const { baseUrl, html, options } = workerData
const absolute = (path) => {
  try {
    return new URL(path, baseUrl).href
  } catch {
    return path
  }
}
const selectors = options.selectors.map((s) =>
  s.selector === "a" && baseUrl !== undefined ? { ...s, options: { ...s.options, pathRewrite: absolute } } : s)
parentPort.postMessage(convert(html, { ...options, selectors }))
`

/** The options: no wrapping, links as `text [URL]`, no images, headings and table headers as written. */
const OPTIONS = {
  wordwrap: false,
  selectors: [
    { selector: "a", options: { hideLinkHrefIfSameAsText: true, noAnchorUrl: true } },
    { selector: "img", format: "skip" },
    ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: "table", options: { uppercaseHeaderCells: false } }
  ]
}

/** Which converter the worker loads, and its heap cap (tests swap in a converter that misbehaves). */
export interface HtmlConverter {
  /** A CommonJS module exporting `convert(html, options)`. Default: `html-to-text`. */
  readonly module?: string
  /** The worker's heap cap. Default `HTML_TO_TEXT_HEAP_MB`. */
  readonly heapMb?: number
}

/**
 * `html` as text (links resolved against `baseUrl`), converted in a worker that is
 * terminated at `deadline`, on interruption, or when it is done (`shared/scriptWorker.ts`).
 */
export const htmlToText = (
  html: string,
  baseUrl?: string,
  deadline: Duration.Input = HTML_TO_TEXT_DEADLINE,
  converter: HtmlConverter = {}
): Effect.Effect<string, ScriptWorkerFailed> =>
  Effect.flatMap(
    runScriptWorker(
      WORKER_SOURCE,
      { module: converter.module ?? modulePath("html-to-text"), html, baseUrl, options: OPTIONS },
      { deadline, heapMb: converter.heapMb ?? HTML_TO_TEXT_HEAP_MB, what: "converting the page to text" }
    ),
    (text) =>
      typeof text === "string"
        ? Effect.succeed(text)
        : Effect.fail(new ScriptWorkerFailed({ reason: "error", message: "the converter answered no text" }))
  )
