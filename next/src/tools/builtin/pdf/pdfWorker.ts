/**
 * The PDF worker: a `worker_threads` entry point that parses untrusted PDF bytes with
 * pdf.js (legacy build) under the heap cap its host gave it. It holds at most one open
 * document and answers the requests of `protocol.ts`, one at a time. It never sees a path:
 * only the bytes the host read.
 *
 * Kept free of `effect` and of any import but pdf.js, `node:` builtins and `workerPrint.ts`
 * (itself free of imports but `node:` builtins), so that a cold start costs only the pdf.js
 * import and the module also runs as a `data:` URL (see `workerScript.ts`).
 *
 * @since 0.1.0
 */
import { parentPort, workerData } from "node:worker_threads"
import type { PDFDocumentProxy } from "pdfjs-dist/legacy/build/pdf.mjs"
import { printThrough } from "../sandbox/workerPrint.js"
import type { FailureReason, PageText, WorkerRequest, WorkerResponse } from "./protocol.js"

const port = parentPort
if (port === null) throw new Error("pdfWorker must run in a worker thread")

// what pdf.js prints (its warnings) goes to the host's debug log, never its stdout
printThrough(typeof workerData === "object" && workerData !== null ? Reflect.get(workerData, "output") : undefined)

/**
 * pdf.js's legacy build takes `DOMMatrix`, `ImageData` and `Path2D` from `@napi-rs/canvas`, an
 * optional dependency, and builds a `DOMMatrix` while it loads: without the package
 * (`npm install --omit=optional`) the import fails. Text extraction never renders, so where a
 * global is missing an inert stand-in takes its place; rendering code would fail on it.
 */
const standIn = (name: string) => ({ [name]: class {} })[name]
for (const name of ["DOMMatrix", "ImageData", "Path2D"]) {
  if (Reflect.get(globalThis, name) === undefined) {
    Object.defineProperty(globalThis, name, { value: standIn(name), writable: true, configurable: true })
  }
}

// pdf.js's legacy build installs core-js polyfills; its `Array.prototype.push` replaces the
// native one (for a length edge case pdf.js never meets) and costs ~30% of text extraction.
// The polyfills live only in this worker's isolate; we put the native `push` back.
const nativePush = Array.prototype.push
const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs")

/** The in-thread pdf.js "worker", set up once and shared by every document this thread opens. */
const pdfjsWorker = new pdfjs.PDFWorker({ verbosity: pdfjs.VerbosityLevel.ERRORS })
await pdfjsWorker.promise
if (Array.prototype.push !== nativePush) {
  Object.defineProperty(Array.prototype, "push", { value: nativePush, writable: true, configurable: true })
}

/** pdf.js's bundled CMaps (from the host), needed to map CID fonts (CJK text) to Unicode. */
const cMapUrl = ((data: unknown): string => {
  if (typeof data === "object" && data !== null && "cMapUrl" in data && typeof data.cMapUrl === "string") {
    return data.cMapUrl
  }
  throw new Error("pdfWorker needs workerData.cMapUrl")
})(workerData)

let doc: PDFDocumentProxy | undefined

const failure = (error: unknown): WorkerResponse => {
  const name = error instanceof Error ? error.name : ""
  const message = error instanceof Error ? error.message : String(error)
  let reason: FailureReason = "error"
  if (name === "PasswordException") {
    const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined
    reason = code === pdfjs.PasswordResponses.INCORRECT_PASSWORD ? "wrong-password" : "needs-password"
  } else if (name === "InvalidPDFException" || name === "FormatError") {
    reason = "invalid-pdf"
  }
  return { _tag: "Failed", reason, message }
}

const close = async (): Promise<void> => {
  const open = doc
  doc = undefined
  if (open !== undefined) await open.destroy()
}

const open = async (data: Uint8Array, password: string): Promise<WorkerResponse> => {
  await close()
  const task = pdfjs.getDocument({
    data,
    password,
    worker: pdfjsWorker,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    enableXfa: false,
    cMapUrl,
    cMapPacked: true
  })
  try {
    doc = await task.promise
    return { _tag: "Opened", numPages: doc.numPages }
  } catch (error) {
    await task.destroy()
    return failure(error)
  }
}

/** The text of one page: pdf.js's text items, a newline where it saw the end of a line. */
const pageText = async (open: PDFDocumentProxy, number: number): Promise<string> => {
  const page = await open.getPage(number)
  try {
    const content = await page.getTextContent()
    let text = ""
    for (const item of content.items) {
      if (!("str" in item)) continue
      text += item.str
      if (item.hasEOL) text += "\n"
    }
    return text.replace(/[ \t]+\n/g, "\n").trim()
  } finally {
    page.cleanup()
  }
}

const pages = async (from: number, to: number, maxChars: number): Promise<WorkerResponse> => {
  const open = doc
  if (open === undefined) return { _tag: "Failed", reason: "not-open", message: "no document is open" }
  const out: Array<PageText> = []
  let chars = 0
  for (let n = from; n <= to && n <= open.numPages; n++) {
    const text = await pageText(open, n)
    out.push({ page: n, text })
    chars += text.length
    if (chars > maxChars) break
  }
  return { _tag: "PagesText", pages: out }
}

const handle = async (request: WorkerRequest): Promise<WorkerResponse> => {
  try {
    switch (request._tag) {
      case "Open":
        return await open(request.data, request.password)
      case "Pages":
        return await pages(request.from, request.to, request.maxChars)
      case "Close":
        await close()
        return { _tag: "Closed" }
    }
  } catch (error) {
    return failure(error)
  }
}

// Requests come one at a time, but chain them anyway so two can never interleave.
let queue: Promise<void> = Promise.resolve()
port.on("message", (request: WorkerRequest) => {
  queue = queue.then(async () => port.postMessage(await handle(request)))
})
