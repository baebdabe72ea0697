/**
 * Where the PDF worker's code comes from, and what it is told at start-up.
 *
 * - From `dist/` (the package as installed): the compiled `pdfWorker.js` beside this module.
 * - From the sources (vitest, tsx): `pdfWorker.ts` transpiled once with TypeScript (a
 *   devDependency, present wherever the sources run) into a `data:` module, its pdf.js import
 *   pointed at the absolute file and its one local import (`workerPrint.ts`) at a `data:`
 *   module transpiled the same way. tsx cannot serve here: Node 20 applies no `--import` loader
 *   hooks inside worker threads, and loading pdf.js through tsx's own API costs ~90 MB of heap
 *   and seconds per worker. This way the worker runs the same code, loaded the same way, in
 *   both cases.
 *
 * @since 0.1.0
 */
import * as FileSystem from "effect/FileSystem"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/** What the worker reads from `workerData`. */
export interface PdfWorkerData {
  /** pdf.js's bundled CMaps directory, with a trailing slash. */
  readonly cMapUrl: string
}

const require = createRequire(import.meta.url)

/** The pdf.js module the worker imports, by the specifier written in `pdfWorker.ts`. */
export const PDFJS_SPECIFIER = "pdfjs-dist/legacy/build/pdf.mjs"

/** The local module the worker imports, by the specifier written in `pdfWorker.ts`. */
export const PRINT_SPECIFIER = "../sandbox/workerPrint.js"

let data: PdfWorkerData | undefined

/** The worker's start-up data (pdf.js is looked up by the first worker, not at import). */
export const workerData = (): PdfWorkerData =>
  (data ??= { cMapUrl: join(dirname(require.resolve("pdfjs-dist/package.json")), "cmaps") + "/" })

const fromSources = new URL(import.meta.url).pathname.endsWith(".ts")

const dataUrl = (js: string): string => `data:text/javascript;base64,${Buffer.from(js).toString("base64")}`

/** Transpiles `pdfWorker.ts` into a `data:` URL module with absolute imports. */
const transpiled: Effect.Effect<URL, Error, FileSystem.FileSystem> = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const ts = yield* Effect.tryPromise(() => import("typescript"))
  const transpile = (file: URL) =>
    Effect.map(fs.readFileString(fileURLToPath(file)), (source) =>
      ts.default.transpileModule(source, {
        compilerOptions: { module: ts.default.ModuleKind.ES2022, target: ts.default.ScriptTarget.ES2022 }
      }).outputText)
  let js = yield* transpile(new URL("./pdfWorker.ts", import.meta.url))
  const print = yield* transpile(new URL(PRINT_SPECIFIER.replace(/\.js$/, ".ts"), import.meta.url))
  const imports = [
    [PDFJS_SPECIFIER, pathToFileURL(require.resolve(PDFJS_SPECIFIER)).href],
    [PRINT_SPECIFIER, dataUrl(print)]
  ] as const
  for (const [specifier, absolute] of imports) {
    const quoted = JSON.stringify(specifier)
    if (!js.includes(quoted)) return yield* Effect.fail(new Error(`pdfWorker.ts no longer imports ${quoted}`))
    js = js.replaceAll(quoted, JSON.stringify(absolute))
  }
  return new URL(dataUrl(js))
}).pipe(
  Effect.mapError((error) => new Error(`cannot prepare the PDF worker from the sources: ${error.message}`))
)

/**
 * A worker entry computed at its first use and kept: `workerEntry` is the process's own; a
 * fresh one starts with nothing kept (its tests see it before any worker has started, also
 * where test files share one module graph).
 */
export const makeWorkerEntry = (): Effect.Effect<URL, Error, FileSystem.FileSystem> => {
  let cached: URL | undefined
  return Effect.suspend(() => {
    if (cached !== undefined) return Effect.succeed(cached)
    const entry = fromSources ? transpiled : Effect.succeed(new URL("./pdfWorker.js", import.meta.url))
    return Effect.tap(entry, (url) =>
      Effect.sync(() => {
        cached = url
      }))
  })
}

/** The worker's entry module (computed once per process). */
export const workerEntry: Effect.Effect<URL, Error, FileSystem.FileSystem> = makeWorkerEntry()
