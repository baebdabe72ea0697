/**
 * PDF fixtures for the `read_pdf` tests and bench, made with pdf-lib (no committed binaries
 * except the encrypted ones, which pdf-lib cannot produce: see test/fixtures/pdf/README.md).
 */
import { once } from "node:events"
import { createDeflate } from "node:zlib"
import { PDFDocument, rgb, StandardFonts } from "pdf-lib"

/** A 1x1 red PNG, to draw an image on an image-only page. */
const RED_PIXEL_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  "base64"
)

/** A PDF with one page per entry; each page shows its lines top-down in Helvetica. */
export const textPdf = async (pages: ReadonlyArray<ReadonlyArray<string>>): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  for (const lines of pages) {
    const page = doc.addPage([612, 792])
    lines.forEach((line, i) => {
      page.drawText(line, { x: 50, y: 740 - i * 14, size: 11, font })
    })
  }
  return doc.save()
}

const WORDS = [
  "lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod",
  "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua", "enim", "minim", "veniam"
]

/** The deterministic filler line `i` of page `page` (about 80 characters). */
export const fillerLine = (page: number, i: number): string => {
  const words: Array<string> = []
  let n = page * 131 + i * 17
  while (words.join(" ").length < 72) {
    words.push(WORDS[n % WORDS.length] ?? "x")
    n = (n * 7 + 3) % 1009
  }
  return words.join(" ")
}

/** The first line of every page of `longPdf`: `Marker of page N`. */
export const pageMarker = (page: number): string => `Marker of page ${page}`

/**
 * A text-heavy document of `pageCount` pages: each starts with `pageMarker(n)` and carries
 * `linesPerPage` filler lines (about 80 characters each).
 */
export const longPdf = (pageCount: number, linesPerPage = 40): Promise<Uint8Array> =>
  textPdf(
    Array.from({ length: pageCount }, (_, p) => [
      pageMarker(p + 1),
      ...Array.from({ length: linesPerPage }, (_, i) => fillerLine(p + 1, i))
    ])
  )

/** Pages that carry only drawings and an image: no text at all. */
export const imageOnlyPdf = async (pageCount = 2): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  const image = await doc.embedPng(RED_PIXEL_PNG)
  for (let i = 0; i < pageCount; i++) {
    const page = doc.addPage([612, 792])
    page.drawRectangle({ x: 100, y: 300, width: 400, height: 200, color: rgb(0.2, 0.4, 0.8) })
    page.drawImage(image, { x: 150, y: 550, width: 120, height: 120 })
  }
  return doc.save()
}

/** Deflates `mb` MiB of spaces, streamed (the input is never held whole). */
const deflatedSpaces = async (mb: number): Promise<Buffer> => {
  const chunk = Buffer.alloc(1024 * 1024, 0x20)
  const deflate = createDeflate({ level: 9 })
  const out: Array<Buffer> = []
  deflate.on("data", (c: Buffer) => out.push(c))
  const ended = once(deflate, "end")
  for (let i = 0; i < mb; i++) {
    if (!deflate.write(chunk)) await once(deflate, "drain")
  }
  deflate.end()
  await ended
  return Buffer.concat(out)
}

/**
 * A hostile one-page PDF: its content stream is a FlateDecode bomb that inflates to
 * `inflatedMb` MiB of spaces (the file itself is ~1/1000 of that). Written by hand: pdf-lib
 * would inflate nothing, but it would not let us set the stream bytes either.
 */
export const flateBombPdf = async (inflatedMb: number): Promise<Uint8Array> => {
  const stream = await deflatedSpaces(inflatedMb)
  const objects: Array<Buffer> = [
    Buffer.from("<< /Type /Catalog /Pages 2 0 R >>"),
    Buffer.from("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
    Buffer.from("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>"),
    Buffer.concat([
      Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
      stream,
      Buffer.from("\nendstream")
    ])
  ]
  const parts: Array<Buffer> = [Buffer.from("%PDF-1.7\n")]
  const offsets: Array<number> = []
  let size = parts[0]?.length ?? 0
  objects.forEach((body, i) => {
    offsets.push(size)
    const part = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from("\nendobj\n")])
    parts.push(part)
    size += part.length
  })
  const xref = [
    "xref",
    `0 ${objects.length + 1}`,
    "0000000000 65535 f ",
    ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n `),
    "trailer",
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    "startxref",
    String(size),
    "%%EOF",
    ""
  ].join("\n")
  parts.push(Buffer.from(xref))
  return new Uint8Array(Buffer.concat(parts))
}
