/**
 * What `readPdf.test.ts` and `readPdf.slow.test.ts` share: a `read_pdf` call in a fresh system
 * over a workspace, one worker pool shared by a test's calls, and readers of the answer; with
 * `readPdf.pages.slow.test.ts`, the workspace of PDFs and its warm pool (`readPdfWorkspace`).
 *
 * On Effect 4: `NodeServices` for `NodeContext`, `Scope.provide` for `Scope.extend`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, beforeAll, expect } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import * as ChildProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { PdfWorkers, type PdfWorkersService, type Tool, type ToolServices, ToolSystem, Workspace } from "../../../src/index.js"
import { makePdfWorkerPool } from "../../../src/layers/PdfWorkers.js"
import { READ_PDF_MAX_BYTES, READ_PDF_MEMORY_LIMIT_MB, readPdf } from "../../../src/tools/builtin/readPdf.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { imageOnlyPdf, longPdf, textPdf } from "./pdfFixtures.js"
import { prepareWorkerEntry } from "./pdfWorkerEntry.js"

/**
 * `call(args, tool?, pool?)`: one call in a fresh system over the workspace `ws`, of `tool`
 * (`read_pdf` by default); with `pool`, the system parses in that (shared) worker pool.
 */
export const readPdfCall = (ws: string) => {
  const system = (tool: Tool.Tool<ToolServices> = readPdf, pool?: PdfWorkersService) =>
    ToolSystem.layerNode({
      builtins: false,
      tools: [tool],
      workspace: Workspace.layerFixed(ws),
      ...(pool === undefined ? {} : { pdfWorkers: Layer.succeed(PdfWorkers, pool) })
    })
  return (args: Record<string, unknown>, tool?: Tool.Tool<ToolServices>, pool?: PdfWorkersService) =>
    Effect.gen(function*() {
      const ts = yield* ToolSystem
      return yield* ts.execute("read_pdf", args)
    }).pipe(Effect.provide(system(tool, pool)))
}

/** Runs `body` with one worker pool shared by its calls, closed (every worker ended) afterwards. */
export const withPool = <A, E>(body: (pool: PdfWorkersService) => Effect.Effect<A, E>) =>
  Effect.flatMap(makePdfWorkerPool(), body).pipe(Effect.scoped, Effect.provide(NodeServices.layer))

export const text = (output: unknown): string => {
  expect(typeof output).toBe("string")
  return String(output)
}

/** The page numbers of the `--- Page N ---` headers, in order. */
export const headers = (output: string): Array<number> =>
  [...output.matchAll(/^--- Page (\d+) ---$/gm)].map((m) => Number(m[1]))

/** The body of an answer: everything before the closing `[...]` note. */
export const body = (output: string): string => output.slice(0, output.lastIndexOf("\n["))

/** The committed encrypted PDFs (pdf-lib cannot make them), in `test/fixtures/pdf`. */
const FIXTURES = path.join(import.meta.dirname, "..", "..", "fixtures", "pdf")

/**
 * A test file's workspace of PDFs (a temp dir made now, filled in the file's `beforeAll`, removed
 * in its `afterAll`: call it at the file's top level, so that the hooks are that file's), with
 * `call` (`readPdfCall` there) and `callShared`, a call parsing in the file's warm pool.
 */
export const readPdfWorkspace = () => {
  const base = makeTempDirSync("read-pdf-")
  const ws = path.join(base, "ws")

  const call = readPdfCall(ws)

  /**
   * The pool of the tests that parse one PDF each: a system of their own would start a worker for
   * each (about 0.2 s of CPU); this one starts one in `beforeAll` and keeps it warm. "reads every
   * page…" parses in a fresh system's own pool, the one a user gets.
   */
  let shared: PdfWorkersService
  const sharedScope = Effect.runSync(Scope.make())
  const callShared = (args: Record<string, unknown>) => call(args, undefined, shared)

  const write = (name: string, data: Uint8Array | string) => fs.writeFileSync(path.join(ws, name), data)

  beforeAll(async () => {
    await prepareWorkerEntry() // the process's one-time set-up of PDF workers: no test's
    fs.mkdirSync(ws, { recursive: true })
    fs.mkdirSync(path.join(base, "outside"), { recursive: true })
    const three = await textPdf([["Hello page one", "second line"], ["Page two text"], ["Third page, café ünïcode"]])
    write("three.pdf", three)
    write("long.pdf", await longPdf(300))
    write("images.pdf", await imageOnlyPdf(2))
    write("mixed.pdf", await textPdf([["Words on the first page"], [], ["Words on the third page"]]))
    write("truncated.pdf", three.slice(0, Math.floor(three.length * 0.6)))
    write("garbage.pdf", Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(4096, 0xa7)]))
    write("notes.txt", "just some text, not a PDF\n")
    // readers look for the header in the first KiB only
    write("late-header.pdf", Buffer.concat([Buffer.alloc(1500, 0x20), three]))
    write("empty.pdf", "")
    write("one.pdf", await textPdf([["Only page"]]))
    fs.mkdirSync(path.join(ws, "folder.pdf"))
    ChildProcess.execFileSync("mkfifo", [path.join(ws, "pipe.pdf")])
    write("huge.pdf", "%PDF-1.7\n")
    fs.truncateSync(path.join(ws, "huge.pdf"), READ_PDF_MAX_BYTES + 1)
    for (const name of ["encrypted-empty-password.pdf", "encrypted-needs-password.pdf"]) {
      fs.copyFileSync(path.join(FIXTURES, name), path.join(ws, name))
    }
    fs.writeFileSync(path.join(base, "outside", "secret.pdf"), three)
    shared = await Effect.runPromise(makePdfWorkerPool().pipe(Scope.provide(sharedScope), Effect.provide(NodeServices.layer)))
    await Effect.runPromise(Effect.scoped(Effect.asVoid(shared.borrow(READ_PDF_MEMORY_LIMIT_MB))))
  })

  afterAll(async () => {
    await Effect.runPromise(Scope.close(sharedScope, Exit.void))
    fs.rmSync(base, { recursive: true, force: true })
  })

  return { call, callShared }
}
