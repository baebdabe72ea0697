/**
 * The worker tools (`read_pdf`, `execute_javascript`) where users run them: the compiled
 * library (see `compiledLibrary.ts`) in a child `node` started with `--input-type=module -e`
 * (Workers must not inherit those flags), without pdf.js's optional `@napi-rs/canvas` (made
 * unresolvable by a preload, in the host and its Workers), and the CLI, whose stdout must be
 * exactly one JSON object whatever the Workers print or report.
 *
 * The compiled library is the package's bundle (`scripts/bundle.mjs` into a temp directory; the
 * CLI is its `bin`, `dist/cli/main.cjs`, where the Effect 3 line, tag effect3, transpiled each
 * source file and ran `dist/cli/main.js`). On Effect 4 the host's logger reads the annotations
 * from its fiber (`References.CurrentLogAnnotations`), is installed with `Logger.layer` and the
 * minimum level with `References.MinimumLogLevel`; a level is named `"Debug"` (Effect 3's label
 * was `"DEBUG"`).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { compileLibrary } from "./compiledLibrary.js"
import { textPdf } from "./pdfFixtures.js"

const base = makeTempDirSync("worker-hosts-")
const ws = path.join(base, "ws")
const blockCanvas = fileURLToPath(new URL("./blockCanvas.cjs", import.meta.url))
let dist = ""

beforeAll(async () => {
  dist = await compileLibrary(path.join(base, "lib"))
  fs.mkdirSync(ws)
  fs.writeFileSync(path.join(ws, "hello.pdf"), await textPdf([["Hello from a compiled host"], ["Second page"]]))
}, 180_000)

afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node ...args` in the compiled library's directory; `NODE_OPTIONS` is only what `nodeOptions` says. */
const node = (args: ReadonlyArray<string>, nodeOptions = ""): Promise<Ran> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [...args],
      {
        cwd: path.dirname(dist),
        encoding: "utf8",
        env: { ...process.env, NODE_OPTIONS: nodeOptions },
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024
      },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    )
  })

/**
 * The host program, for `node --input-type=module -e`: calls both tools through
 * `ToolSystem.layerNode`, with a debug-level logger that writes JSON lines to stderr, and prints
 * `{ canvas, pdf, js }` (whether `@napi-rs/canvas` resolves here, and the two results) on stdout.
 */
const hostProgram = () => {
  const index = pathToFileURL(path.join(dist, "index.js")).href
  return `
import { Effect, Logger, References } from "effect"
import { createRequire } from "node:module"
import { executeJavascript, readPdf, ToolSystem, Workspace } from ${JSON.stringify(index)}

const toStderr = Logger.make(({ fiber, logLevel, message }) => {
  const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
  const annotations = fiber.getRef(References.CurrentLogAnnotations)
  process.stderr.write(JSON.stringify({ level: logLevel, message: text, annotations }) + "\\n")
})
let canvas = true
try { createRequire(import.meta.url)("@napi-rs/canvas") } catch { canvas = false }

const program = Effect.gen(function*() {
  const tools = yield* ToolSystem
  const pdf = yield* tools.execute("read_pdf", { filepath: "hello.pdf" })
  const js = yield* tools.execute("execute_javascript", { code: "6 * 7" }, { confirm: true })
  return { canvas, pdf, js }
})
const result = await Effect.runPromise(program.pipe(
  Effect.provide(ToolSystem.layerNode({
    builtins: false,
    tools: [readPdf, executeJavascript],
    workspace: Workspace.layerFixed(${JSON.stringify(ws)})
  })),
  Effect.provide(Logger.layer([toStderr])),
  Effect.provideService(References.MinimumLogLevel, "Debug")
))
process.stdout.write(JSON.stringify(result))
`
}

/** The host's answer: stdout must be that one JSON object and nothing else. */
const answerOf = (ran: Ran) => {
  expect(ran.code, ran.stderr).toBe(0)
  return JSON.parse(ran.stdout) as { canvas: boolean; pdf: Record<string, unknown>; js: Record<string, unknown> }
}

/** The stderr lines the host's logger wrote. */
const logLines = (stderr: string) =>
  stderr.split("\n").filter((line) => line.startsWith("{")).map((line) =>
    JSON.parse(line) as { level: string; message: string; annotations: Record<string, unknown> }
  )

const expectBothToolsWorked = (answer: ReturnType<typeof answerOf>) => {
  expect(answer.pdf).toMatchObject({ success: true, tool: "read_pdf" })
  expect(answer.pdf["output"]).toContain("--- Page 1 ---\nHello from a compiled host")
  expect(answer.pdf["output"]).toContain("--- Page 2 ---\nSecond page")
  expect(answer.js).toMatchObject({ success: true, output: { stdout: "", result: "42" } })
}

describe("the worker tools where users run them", () => {
  it("work in a host started with node --input-type=module -e (Workers get clean flags)", async () => {
    const answer = answerOf(await node(["--input-type=module", "-e", hostProgram()]))
    expectBothToolsWorked(answer)
  }, 60_000)

  it("read_pdf works without the optional @napi-rs/canvas; what pdf.js prints goes to the debug log", async () => {
    const ran = await node(["--input-type=module", "-e", hostProgram()], `--require ${blockCanvas}`)
    const answer = answerOf(ran)
    expect(answer.canvas).toBe(false) // the preload holds in the host...
    expectBothToolsWorked(answer)
    // ...and in the PDF worker, whose pdf.js says so: in the log, at debug level, not on stdout
    const warning = logLines(ran.stderr).find((line) => line.message.includes("Cannot load \"@napi-rs/canvas\""))
    expect(warning).toMatchObject({ level: "Debug", annotations: { worker: "pdf" } })
    expect(ran.stdout).not.toContain("Warning")
  }, 60_000)

  describe("the CLI prints exactly one JSON object on stdout", () => {
    const cli = () => path.join(dist, "cli", "main.cjs")

    it("when a recycled sandbox worker reports a QuickJS assertion", async () => {
      // a job queue that never empties: disposing the runtime at the deadline aborts on an assertion
      const code = "function flood() { Promise.resolve().then(flood); Promise.resolve().then(flood) } flood()"
      const ran = await node([cli(), "call", "execute_javascript", JSON.stringify({ code, timeout_sec: 0.3 }), "--yes", "--workspace", ws])
      const result = JSON.parse(ran.stdout) as Record<string, unknown>
      expect(result).toMatchObject({ tool: "execute_javascript", success: false, errorCode: "TOOL_ERROR" })
      expect(ran.code).toBe(1)
    }, 60_000)

    it("when pdf.js warns in its worker (no @napi-rs/canvas)", async () => {
      const ran = await node(
        [cli(), "call", "read_pdf", JSON.stringify({ filepath: "hello.pdf" }), "--workspace", ws],
        `--require ${blockCanvas}`
      )
      const result = JSON.parse(ran.stdout) as Record<string, unknown>
      expect(result).toMatchObject({ tool: "read_pdf", success: true })
      expect(ran.code).toBe(0)
    }, 60_000)
  })
})
