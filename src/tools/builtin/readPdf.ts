/**
 * `read_pdf`: the page-numbered text of a PDF in the workspace, read in passes.
 *
 * The host reads the file through a descriptor bound to the resolved path (`shared/safeFs.ts`),
 * to `READ_PDF_MAX_BYTES` at most; pdf.js parses the bytes in a
 * `worker_threads` Worker whose heap is capped at the tool's `memoryLimitMb` and which is
 * terminated when the call times out or is interrupted (see `src/layers/PdfWorkers.ts`). A parser that
 * runs out of that heap is `MemoryLimitExceeded` (`MEMORY_LIMIT`).
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { MemoryLimitExceeded, ToolError } from "../../domain/errors.js"
import { WorkspacePath } from "../../domain/WorkspacePath.js"
import { Workspace } from "../../services/Workspace.js"
import { make, type Tool } from "../defineBuiltin.js"
import { PdfWorkers } from "../../services/PdfWorkers.js"
import { extractText } from "./pdf/extract.js"
import { openFile } from "../shared/safeFs.js"
import { readBytes } from "../shared/safeFsBytes.js"
import { formatPages } from "./pdf/format.js"
import type { PdfWorkerError } from "../../layers/PdfWorkers.js"

/** Largest PDF `read_pdf` opens. */
export const READ_PDF_MAX_BYTES = 256 * 1024 * 1024
/** The default heap cap of the parsing worker. */
export const READ_PDF_MEMORY_LIMIT_MB = 512

const TOOL = "read_pdf"

/** A PDF starts with `%PDF-`, possibly after some junk (readers look in the first 1 KiB). */
const hasPdfHeader = (bytes: Uint8Array): boolean =>
  Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).includes("%PDF-")

const messageOf = (error: PdfWorkerError, file: string): string => {
  switch (error.reason) {
    case "needs-password":
    case "wrong-password":
      return `"${file}" is encrypted and needs a password (the empty password does not open it); ` +
        `read_pdf cannot read password-protected PDFs`
    case "invalid-pdf":
      return `"${file}" is not a valid PDF or is damaged: ${error.message}`
    default:
      return `could not read "${file}": ${error.message}`
  }
}

const Parameters = Schema.Struct({
  filepath: WorkspacePath.annotate({ description: "Path of the PDF file, relative to the workspace root" }),
  start_page: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({ description: "First page to read (1-based)" })
    .pipe(Schema.withDecodingDefaultType(Effect.succeed(1))),
  max_pages: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({ description: "Read at most this many pages" })
    .pipe(Schema.withDecodingDefaultType(Effect.succeed(40))),
  max_chars: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
    description: "Stop once the output reaches this many characters"
  }).pipe(Schema.withDecodingDefaultType(Effect.succeed(20000)))
})

/** What `makeReadPdf` takes (the defaults are those of `readPdf`). */
export interface ReadPdfOptions {
  /** Default 30 s. */
  readonly timeout?: Duration.Input
  /** The parsing worker's heap cap. Default `READ_PDF_MEMORY_LIMIT_MB`. */
  readonly memoryLimitMb?: number
}

/** Builds a `read_pdf` tool; `readPdf` is the one with the catalog's settings. */
export const makeReadPdf = (options: ReadPdfOptions = {}): Tool<Workspace | PdfWorkers> => {
  const limitMb = options.memoryLimitMb ?? READ_PDF_MEMORY_LIMIT_MB
  return make(TOOL, {
    description: "Read the text of a PDF in the workspace, page by page (`--- Page N ---` headers). " +
      "Long documents are read in passes: the answer says which start_page to continue from. " +
      "Scanned (image-only) pages have no text: no OCR is done.",
    parameters: Parameters,
    readOnly: true,
    tags: ["files", "pdf", "builtin"],
    timeout: options.timeout ?? "30 seconds",
    memoryLimitMb: limitMb,
    handler: ({ filepath, max_chars, max_pages, start_page }) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace
        const file = yield* workspace.display(filepath)
        const fail = (message: string) => new ToolError({ tool: TOOL, message })
        // the descriptor is bound to the resolved path (no symlink or FIFO swapped in since) and
        // read to the cap, whatever the file grows to meanwhile
        const bytes = yield* Effect.scoped(Effect.flatMap(openFile(filepath), (opened) => readBytes(opened, READ_PDF_MAX_BYTES))).pipe(
          Effect.mapError((error) =>
            error._tag === "FileTooLarge"
              ? fail(`"${file}" is ${error.size} bytes, over the ${READ_PDF_MAX_BYTES}-byte limit`)
              : error.reason === "NotFound"
              ? fail(`"${file}" does not exist`)
              : error.reason === "IsDirectory" || error.reason === "NotRegularFile"
              ? fail(`"${file}" is ${error.kind === undefined ? "a directory" : `a ${error.kind}`}, not a regular file`)
              : new ToolError({ tool: TOOL, message: error.message, cause: error })
          )
        )
        if (bytes.length === 0) return yield* fail(`"${file}" is empty, not a PDF`)
        if (!hasPdfHeader(bytes)) return yield* fail(`"${file}" is not a PDF (no %PDF- header)`)

        const extraction = yield* extractText(bytes, {
          startPage: start_page,
          maxPages: max_pages,
          maxChars: max_chars,
          memoryLimitMb: limitMb
        }).pipe(
          Effect.mapError((error) =>
            error.reason === "out-of-memory"
              ? new MemoryLimitExceeded({ tool: TOOL, limitMb })
              : fail(messageOf(error, file))
          )
        )
        const { numPages, pages } = extraction
        if (start_page > numPages) {
          return yield* fail(
            `start_page=${start_page} is past the end of "${file}", which has ${numPages} page${numPages === 1 ? "" : "s"}`
          )
        }
        return formatPages({ file, numPages, startPage: start_page, maxPages: max_pages, maxChars: max_chars, pages })
      })
  })
}

/**
 * `read_pdf(filepath, start_page=1, max_pages=40, max_chars=20000)`: read-only, 30 s.
 *
 * @since 0.1.0
 * @category tools
 */
export const readPdf = makeReadPdf()
