/**
 * How `read_pdf` lays out what it read: one `--- Page N ---` block per page, cut at
 * `max_chars`, and a closing note that names the total page count and, when the document
 * goes on, the exact `start_page` of the next pass.
 *
 * @since 0.1.0
 */
import type { PageText } from "./protocol.js"

/** Shown for a page without a text layer, among pages that have one. */
export const EMPTY_PAGE = "[no extractable text on this page]"

/** The block of one page, as it appears in the output (and counts against `max_chars`). */
export const pageBlock = (page: PageText): string =>
  `--- Page ${page.page} ---\n${page.text.length > 0 ? page.text : EMPTY_PAGE}\n\n`

/** What `formatPages` lays out. */
export interface FormatInput {
  /** The file as the agent named it (workspace-relative). */
  readonly file: string
  readonly numPages: number
  readonly startPage: number
  readonly maxPages: number
  readonly maxChars: number
  /** The extracted pages, consecutive from `startPage` (more than fit is fine). */
  readonly pages: ReadonlyArray<PageText>
}

const range = (from: number, to: number) => (from === to ? `page ${from}` : `pages ${from}-${to}`)

/**
 * The tool's answer. Whole pages are kept while they fit in `maxChars`; a first page that
 * alone is longer is cut (and says so). Pages that all lack text give the
 * "no extractable text, no OCR" answer.
 */
export const formatPages = (input: FormatInput): string => {
  const { file, maxChars, maxPages, numPages, startPage } = input
  const lastWanted = Math.min(numPages, startPage + maxPages - 1)
  const wanted = input.pages.filter((p) => p.page >= startPage && p.page <= lastWanted)

  if (wanted.length > 0 && wanted.every((p) => p.text.length === 0)) {
    const end = wanted[wanted.length - 1]?.page ?? startPage
    const more = end < numPages ? ` Continue with start_page=${end + 1}.` : ""
    return `"${file}": no extractable text, no OCR: ${range(startPage, end)} of ${numPages} ` +
      `${end === startPage ? "has" : "have"} no text layer (scanned or image-only pages).${more}`
  }

  const blocks: Array<string> = []
  let used = 0
  let end = startPage - 1
  let cutFirst = false
  for (const page of wanted) {
    const block = pageBlock(page)
    if (used + block.length > maxChars) {
      if (blocks.length === 0) {
        blocks.push(`${block.slice(0, maxChars)}…\n\n`)
        end = page.page
        cutFirst = true
      }
      break
    }
    blocks.push(block)
    used += block.length
    end = page.page
  }

  // no page read at all (the reader returned none): said so, not as an empty range
  const shown = end < startPage ? "no page" : range(startPage, end)
  let note: string
  if (end >= numPages && !cutFirst) {
    note = `[End of document: ${shown} of ${numPages}.]`
  } else if (cutFirst) {
    const next = end < numPages ? ` Continue with start_page=${end + 1}.` : ""
    note = `[Page ${end} of ${numPages} was cut at max_chars=${maxChars}; pass a larger max_chars to read it whole.${next}]`
  } else {
    // no page shown (end = startPage - 1) is always short of lastWanted: max_chars stopped it
    const limit = end < lastWanted ? `max_chars=${maxChars}` : `max_pages=${maxPages}`
    note = `[Truncated at ${limit}: showing ${shown} of ${numPages}. Continue with start_page=${end + 1}.]`
  }
  return `${blocks.join("")}${note}`
}
