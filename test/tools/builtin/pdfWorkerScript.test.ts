/**
 * Where the PDF worker's code comes from when the library runs from its sources: `pdfWorker.ts`
 * transpiled with its two imports made absolute, what goes wrong said as such, and the result
 * kept for the process. Each test makes a fresh entry (`makeWorkerEntry`), so it sees one that
 * no earlier worker has computed. On Effect 4 the failing reads are `PlatformError.systemError`s.
 *
 * TypeScript, which the entry loads from the sources, is loaded in `beforeAll`: about 0.35 s of
 * CPU once per process (as `pdfWorkerEntry.ts` does it for the other PDF files), which would
 * otherwise fall on the test below when this file runs first in its process. The test's own work
 * is its fresh entry's reads and transpilations.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, FileSystem, PlatformError } from "effect"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { makeWorkerEntry, workerData } from "../../../src/tools/builtin/pdf/workerScript.js"

const require = createRequire(import.meta.url)

/** The text of a `data:text/javascript;base64,` module. */
const textOf = (url: URL): string => Buffer.from(url.pathname.slice(url.pathname.indexOf(",") + 1), "base64").toString("utf8")

beforeAll(async () => {
  await import("typescript")
})

/** A file system whose reads give `source(path)`, or fail when it gives undefined. */
const readingAs = (source: (path: string) => string | undefined) =>
  FileSystem.layerNoop({
    readFileString: (path) => {
      const text = source(path)
      return text === undefined
        ? Effect.fail(PlatformError.systemError({ _tag: "NotFound", module: "FileSystem", method: "readFileString", pathOrDescriptor: path }))
        : Effect.succeed(text)
    }
  })

const failureOf = (
  workerEntry: ReturnType<typeof makeWorkerEntry>,
  layer: ReturnType<typeof readingAs>
) => Effect.map(Effect.flip(workerEntry.pipe(Effect.provide(layer))), (error) => error.message)

describe("the PDF worker's script from the sources", () => {
  it.effect("tells the worker where pdf.js's CMaps are: the package's cmaps directory, with its slash", () =>
    Effect.sync(() => {
      const cmaps = Path.join(Path.dirname(require.resolve("pdfjs-dist/package.json")), "cmaps")
      expect(workerData()).toEqual({ cMapUrl: `${cmaps}/` })
    }))

  it.effect("a source it cannot read, or one without an import it rewrites, is an error that says so; the entry is then made once", () =>
    Effect.gen(function*() {
      const workerEntry = makeWorkerEntry()
      const unreadable = yield* failureOf(workerEntry, readingAs(() => undefined))
      expect(unreadable).toMatch(/^cannot prepare the PDF worker from the sources: .*NotFound/)
      expect(unreadable).toContain("pdfWorker.ts")

      const read: Array<string> = []
      const changed = yield* failureOf(workerEntry, readingAs((path) => {
        read.push(Path.basename(path))
        return path.endsWith("pdfWorker.ts") ? "import { x } from \"../sandbox/workerPrint.js\"\n" : "export {}\n"
      }))
      expect(changed).toBe("cannot prepare the PDF worker from the sources: pdfWorker.ts no longer imports \"pdfjs-dist/legacy/build/pdf.mjs\"")
      expect(read).toEqual(["pdfWorker.ts", "workerPrint.ts"])

      const entry = yield* workerEntry.pipe(Effect.provide(NodeServices.layer))
      expect(entry.protocol).toBe("data:")
      // made once: a later call reads nothing
      const again = yield* workerEntry.pipe(Effect.provide(readingAs(() => undefined)))
      expect(again.href).toBe(entry.href)
    }))
  it.effect("is an ES module of the sources' own syntax: pdf.js imported by its file URL, workerPrint.ts as a data: module", () =>
    Effect.gen(function*() {
      const entry = yield* makeWorkerEntry().pipe(Effect.provide(NodeServices.layer))
      const js = textOf(entry)
      const pdfjs = pathToFileURL(require.resolve("pdfjs-dist/legacy/build/pdf.mjs")).href
      expect(js).toMatch(/^import \{ parentPort, workerData \} from "node:worker_threads";$/m)
      expect(js).toContain(`await import(${JSON.stringify(pdfjs)})`)
      expect(js).not.toMatch(/\brequire\(|\bexports\./)
      const print = /^import \{ printThrough \} from "(data:[^"]+)";$/m.exec(js)?.[1]
      expect(print).toBeDefined()
      const printJs = textOf(new URL(print ?? ""))
      expect(printJs).toMatch(/^export const printThrough = \(port\) => \{$/m)
      expect(printJs).not.toMatch(/\brequire\(|\bexports\./)
    }))
})
