/**
 * `read_pdf`'s speed (the same files, runs and comparisons as the Effect 3 line's `bench/pdf.ts`,
 * tag effect3): all the text of a 300-page pdf-lib document and of a real text-heavy
 * PDF (Debian's libtasn1-doc manual), warm (best of several runs in a running process), beside
 * pypdf (only the reader and extraction loop, timed inside Python) and `pdftotext` (the whole
 * command). Ours goes through the real executor (`ToolSystem.layerNode`); "1 worker" is the same
 * extraction with the page split across two workers turned off.
 *
 * Run under tsx from the sources: the PDF worker's script is then
 * `pdfWorker.ts` transpiled once by TypeScript (`pdf/workerScript.ts`), not tsx, so the
 * extraction runs the same code as from `dist/`; a bundle of this bench would look for
 * `pdfWorker.js` beside itself.
 *
 *   npx tsx bench/pdf.ts            (apt-get install -y libtasn1-doc python3-pypdf poppler-utils)
 *
 * BENCH_RUNS=7. A missing tool or file is reported and skipped.
 */
import { NodeServices } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PdfWorkers, ToolSystem, Workspace } from "../src/index.js"
import { extractText } from "../src/tools/builtin/pdf/extract.js"
import { makePdfWorkerPool } from "../src/layers/PdfWorkers.js"
import { readPdf, READ_PDF_MEMORY_LIMIT_MB } from "../src/tools/builtin/readPdf.js"
import { longPdf } from "../test/tools/builtin/pdfFixtures.js"

const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const ALL = { max_pages: 1_000_000, max_chars: 1_000_000_000 }

const best = (times: ReadonlyArray<number>) => Math.min(...times)
const fmt = (ms: number | undefined) => (ms === undefined ? "—" : `${ms.toFixed(1)} ms`)
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? "—" : `${(a / b).toFixed(2)}x`

/** A Python that has pypdf, or undefined. */
const python = ["python3", "/usr/bin/python3"].find((py) =>
  spawnSync(py, ["-c", "import pypdf"], { stdio: "ignore" }).status === 0
)
const hasPdftotext = spawnSync("pdftotext", ["-v"], { stdio: "ignore" }).error === undefined

const PYPDF = `
import sys, time
from pypdf import PdfReader
times = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    reader = PdfReader(sys.argv[1])
    chars = sum(len(page.extract_text()) for page in reader.pages)
    times.append((time.perf_counter() - t) * 1000)
print(min(times), chars)
`

const pypdf = (file: string): { ms: number; chars: number } | undefined => {
  if (python === undefined) return undefined
  const r = spawnSync(python, ["-c", PYPDF, file, String(RUNS)], { encoding: "utf8" })
  if (r.status !== 0) {
    console.log(`  pypdf failed: ${r.stderr.trim().split("\n").at(-1)}`)
    return undefined
  }
  const [ms, chars] = r.stdout.trim().split(/\s+/).map(Number)
  return ms === undefined || chars === undefined ? undefined : { ms, chars }
}

const pdftotext = (file: string): { ms: number; chars: number } | undefined => {
  if (!hasPdftotext) return undefined
  const times: Array<number> = []
  let chars = 0
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now()
    const r = spawnSync("pdftotext", [file, "-"], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
    times.push(performance.now() - t)
    chars = r.stdout.length
  }
  return { ms: best(times), chars }
}

const timeOurs = <A, R>(run: Effect.Effect<A, never, R>, size: (a: A) => number) =>
  Effect.gen(function*() {
    const times: Array<number> = []
    let chars = 0
    for (let i = 0; i < RUNS + 2; i++) {
      const t = performance.now()
      const a = yield* run
      if (i >= 2) times.push(performance.now() - t) // two warm-up runs
      chars = size(a)
    }
    return { ms: best(times), chars }
  })

const benchFile = (dir: string, name: string) =>
  Effect.gen(function*() {
    const ts = yield* ToolSystem
    const file = path.join(dir, name)
    const viaTool = ts.execute("read_pdf", { filepath: name, ...ALL }).pipe(
      Effect.tap((r) => (r.success ? Effect.void : Effect.die(new Error(`read_pdf failed: ${r.error}`))))
    )
    const ours = yield* timeOurs(viaTool, (r) => String(r.output).length)
    const bytes = new Uint8Array(fs.readFileSync(file))
    const oneWorker = extractText(bytes, {
      startPage: 1,
      maxPages: ALL.max_pages,
      maxChars: ALL.max_chars,
      memoryLimitMb: READ_PDF_MEMORY_LIMIT_MB,
      parallel: false
    }).pipe(Effect.orDie)
    const single = yield* timeOurs(oneWorker, (x) => x.pages.reduce((n, p) => n + p.text.length, 0))
    const py = pypdf(file)
    const pt = pdftotext(file)
    console.log(`\n${name} (${(bytes.length / 1024).toFixed(0)} KiB)`)
    console.log(`  read_pdf (executor)       ${fmt(ours.ms).padStart(12)}   ${ours.chars} chars (with headers)`)
    console.log(`  read_pdf (1 worker)       ${fmt(single.ms).padStart(12)}   ${single.chars} chars`)
    console.log(
      `  pypdf                     ${fmt(py?.ms).padStart(12)}   ${py === undefined ? "skipped (no python3 with pypdf)" : `${py.chars} chars`}`
    )
    console.log(
      `  pdftotext (whole command) ${fmt(pt?.ms).padStart(12)}   ${pt === undefined ? "skipped (no pdftotext)" : `${pt.chars} chars`}`
    )
    console.log(`  ours/pypdf      ${ratio(ours.ms, py?.ms)}   (1 worker: ${ratio(single.ms, py?.ms)})`)
    console.log(`  ours/pdftotext  ${ratio(ours.ms, pt?.ms)}   (1 worker: ${ratio(single.ms, pt?.ms)})`)
  })

const main = Effect.gen(function*() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "bench-pdf-")))
  yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
  console.log(`read_pdf bench (Effect 4, Node ${process.versions.node}): best of ${RUNS} warm runs; ${os.availableParallelism()} cores, load ${os.loadavg()[0]?.toFixed(2)}`)
  fs.writeFileSync(path.join(dir, "long300.pdf"), yield* Effect.promise(() => longPdf(300)))
  const files = ["long300.pdf"]
  const manual = "/usr/share/doc/libtasn1-doc/libtasn1.pdf"
  if (fs.existsSync(manual)) {
    fs.copyFileSync(manual, path.join(dir, "libtasn1.pdf"))
    files.push("libtasn1.pdf")
  } else {
    console.log(`${manual} is missing (apt-get install -y libtasn1-doc): skipped`)
  }
  // one worker pool for the tool and for the direct extraction (the system's layer does not output its pool)
  const pool = yield* makePdfWorkerPool().pipe(Effect.provide(NodeServices.layer))
  const system = ToolSystem.layerNode({
    builtins: false,
    tools: [readPdf],
    workspace: Workspace.layerFixed(dir),
    pdfWorkers: Layer.succeed(PdfWorkers, pool)
  })
  for (const name of files) {
    yield* benchFile(dir, name).pipe(Effect.provide(system), Effect.provideService(PdfWorkers, pool))
  }
})

Effect.runPromise(Effect.scoped(main)).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
