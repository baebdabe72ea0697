/**
 * The messages between the host and a PDF worker. The worker holds at most one open
 * document (a session): the host opens it with the bytes, asks for text a chunk of pages at a
 * time, and closes it. Responses are decoded on the host with `WorkerResponse`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** Opens a document from its bytes (closing any open one); answers `Opened` or `Failed`. */
export interface OpenRequest {
  readonly _tag: "Open"
  readonly data: Uint8Array
  readonly password: string
}

/**
 * Extracts the text of pages `from..to` (1-based, inclusive) of the open document; answers
 * `PagesText` or `Failed`. The worker stops early, after the page that brings the chunk's text
 * past `maxChars`: nothing after that page can fit in the caller's budget.
 */
export interface PagesRequest {
  readonly _tag: "Pages"
  readonly from: number
  readonly to: number
  readonly maxChars: number
}

/** Closes the open document (if any); answers `Closed`. */
export interface CloseRequest {
  readonly _tag: "Close"
}

/** What the host sends. */
export type WorkerRequest = OpenRequest | PagesRequest | CloseRequest

/** Why the worker could not do what was asked. */
export const FailureReason = Schema.Literals(["needs-password", "wrong-password", "invalid-pdf", "not-open", "error"])
export type FailureReason = typeof FailureReason.Type

/** The text of one page. */
export const PageText = Schema.Struct({ page: Schema.Int, text: Schema.String })
export type PageText = typeof PageText.Type

/** The document is open. */
export const Opened = Schema.TaggedStruct("Opened", { numPages: Schema.Int })
/** The text of consecutive pages from the chunk's first page on. */
export const PagesText = Schema.TaggedStruct("PagesText", { pages: Schema.Array(PageText) })
/** The document is closed. */
export const Closed = Schema.TaggedStruct("Closed", {})
/** The request failed; `message` is pdf.js's own. */
export const Failed = Schema.TaggedStruct("Failed", { reason: FailureReason, message: Schema.String })

/** What the worker answers. */
export const WorkerResponse = Schema.Union([Opened, PagesText, Closed, Failed])
export type WorkerResponse = typeof WorkerResponse.Type
