/**
 * `formatPages`, the layout of `read_pdf`'s answer, on pages given by hand: the closing note
 * for each way a pass ends (end of document, `max_pages`, `max_chars`, a first page cut), the
 * exact `start_page` of the next pass, pages outside the wanted range, and documents without
 * a text layer. `read_pdf`'s own tests reach it only through real PDFs, where most of these
 * edges never line up.
 */
import { describe, expect, it } from "@effect/vitest"
import { EMPTY_PAGE, type FormatInput, formatPages, pageBlock } from "../../../src/tools/builtin/pdf/format.js"

const page = (n: number, text = `text of page ${n}`) => ({ page: n, text })
const pages = (from: number, to: number, text?: string) =>
  Array.from({ length: to - from + 1 }, (_, i) => page(from + i, text))

const format = (input: Partial<FormatInput> & Pick<FormatInput, "pages">): string =>
  formatPages({ file: "doc.pdf", numPages: 10, startPage: 1, maxPages: 100, maxChars: 100_000, ...input })

const blocks = (from: number, to: number) => pages(from, to).map(pageBlock).join("")

describe("formatPages", () => {
  it("lays out every page and ends the last pass with the page count", () => {
    expect(format({ numPages: 3, pages: pages(1, 3) })).toBe(`${blocks(1, 3)}[End of document: pages 1-3 of 3.]`)
    // one page is named as one
    expect(format({ numPages: 1, pages: [page(1)] })).toBe(`${blocks(1, 1)}[End of document: page 1 of 1.]`)
    expect(format({ numPages: 4, startPage: 4, pages: [page(4)] })).toBe(`${blocks(4, 4)}[End of document: page 4 of 4.]`)
  })

  it("marks a page without text among pages with text", () => {
    expect(format({ numPages: 2, pages: [page(1), page(2, "")] })).toContain(`--- Page 2 ---\n${EMPTY_PAGE}\n\n`)
  })

  it("shows only the pages from start_page within max_pages, and names max_pages as the limit", () => {
    const out = format({ startPage: 3, maxPages: 2, pages: pages(1, 8) })
    expect(out).toBe(`${blocks(3, 4)}[Truncated at max_pages=2: showing pages 3-4 of 10. Continue with start_page=5.]`)
  })

  it("keeps whole pages while they fit in max_chars (a page that fits exactly is kept)", () => {
    const two = blocks(1, 2).length
    expect(format({ maxChars: two, pages: pages(1, 5) })).toBe(
      `${blocks(1, 2)}[Truncated at max_chars=${two}: showing pages 1-2 of 10. Continue with start_page=3.]`
    )
    expect(format({ maxChars: two - 1, pages: pages(1, 5) })).toBe(
      `${blocks(1, 1)}[Truncated at max_chars=${two - 1}: showing page 1 of 10. Continue with start_page=2.]`
    )
    // pages that were not extracted at all (the reader stopped) count as a max_chars stop
    expect(format({ maxPages: 5, pages: pages(1, 2) })).toBe(
      `${blocks(1, 2)}[Truncated at max_chars=100000: showing pages 1-2 of 10. Continue with start_page=3.]`
    )
  })

  it("cuts a first page that alone is longer than max_chars, and says how to read it whole", () => {
    const long = page(2, "x".repeat(500))
    expect(format({ startPage: 2, maxChars: 100, pages: [long, page(3)] })).toBe(
      `${pageBlock(long).slice(0, 100)}…\n\n` +
        "[Page 2 of 10 was cut at max_chars=100; pass a larger max_chars to read it whole. Continue with start_page=3.]"
    )
    // the last page of the document: nothing to continue with
    expect(format({ numPages: 2, startPage: 2, maxChars: 100, pages: [long] })).toBe(
      `${pageBlock(long).slice(0, 100)}…\n\n` +
        "[Page 2 of 2 was cut at max_chars=100; pass a larger max_chars to read it whole.]"
    )
  })

  it("answers that there is no text layer when every wanted page lacks text", () => {
    expect(format({ maxPages: 3, pages: pages(1, 3, "") })).toBe(
      "\"doc.pdf\": no extractable text, no OCR: pages 1-3 of 10 have no text layer (scanned or image-only pages). " +
        "Continue with start_page=4."
    )
    expect(format({ numPages: 5, startPage: 5, pages: [page(5, "")] })).toBe(
      "\"doc.pdf\": no extractable text, no OCR: page 5 of 5 has no text layer (scanned or image-only pages)."
    )
    // a page with text outside the wanted range does not count
    expect(format({ numPages: 5, startPage: 2, maxPages: 1, pages: [page(1), page(2, ""), page(3)] })).toMatch(
      /^"doc\.pdf": no extractable text, no OCR: page 2 of 5 has no text layer .*Continue with start_page=3\.$/
    )
  })

  it("with no page read, names max_chars and the same start_page again", () => {
    expect(format({ startPage: 2, pages: [] })).toBe(
      "[Truncated at max_chars=100000: showing no page of 10. Continue with start_page=2.]"
    )
  })
})
