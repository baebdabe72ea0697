/**
 * What `readPdf.test.ts` and `readPdf.slow.test.ts` share: a `read_pdf` call in a fresh system
 * over a workspace, one worker pool shared by a test's calls, and readers of the answer.
 */
import { NodeContext } from "@effect/platform-node"
import { expect } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { PdfWorkers, type PdfWorkersService, type Tool, type ToolServices, ToolSystem, Workspace } from "../../../src/index.js"
import { makePdfWorkerPool } from "../../../src/tools/builtin/pdf/workerPool.js"
import { readPdf } from "../../../src/tools/builtin/readPdf.js"

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
  Effect.flatMap(makePdfWorkerPool(), body).pipe(Effect.scoped, Effect.provide(NodeContext.layer))

export const text = (output: unknown): string => {
  expect(typeof output).toBe("string")
  return String(output)
}

/** The page numbers of the `--- Page N ---` headers, in order. */
export const headers = (output: string): Array<number> =>
  [...output.matchAll(/^--- Page (\d+) ---$/gm)].map((m) => Number(m[1]))

/** The body of an answer: everything before the closing `[...]` note. */
export const body = (output: string): string => output.slice(0, output.lastIndexOf("\n["))
