/**
 * The package as a user gets it: built from the sources into a staging copy of the package
 * (what `files` lists, with a fresh `dist/`: tsc's .d.ts files and the bundles, as `npm run build` does),
 * packed with `npm pack`, the tarball installed into a fresh project beside its peers, then the
 * command line, an ESM script and a TypeScript file run against the installed copy. Catches a
 * file missing from `files`, an export missing from the `.d.ts`, a dependency that only our
 * devDependencies provided, and a second copy of `effect`. The working tree's `dist/` is not
 * read or written.
 *
 * Needs the npm registry (or npm's cache) for the peers; takes one to two minutes.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { makeTempDirSync } from "../helpers/tempDir.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const ourPackage: { devDependencies: Record<string, string>; files: Array<string> } = JSON.parse(
  fs.readFileSync(path.join(root, "package.json"), "utf8")
)
/** The peers (and the TypeScript toolchain) at the versions our own tests run with. */
const withVersions = (names: ReadonlyArray<string>) => names.map((name) => `${name}@${ourPackage.devDependencies[name]}`)

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeout = 180_000) =>
  new Promise<Run>((resolve) => {
    execFile(command, args, {
      cwd,
      encoding: "utf8",
      env: { ...process.env, WORKSPACE_ROOT: "" },
      timeout,
      maxBuffer: 64 * 1024 * 1024
    }, (error, stdout, stderr) =>
      resolve({
        code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
        stdout,
        stderr
      }))
  })

/** `run`, failing with the command's output unless it exits 0. */
const ok = async (command: string, args: ReadonlyArray<string>, cwd: string, timeout?: number) => {
  const result = await run(command, args, cwd, timeout)
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`)
  }
  return result
}

/** Every installed copy of a package (its directories), however deep. */
const copiesOf = (nodeModules: string, name: string): Array<string> => {
  if (!fs.existsSync(nodeModules)) return []
  const found: Array<string> = []
  for (const entry of fs.readdirSync(nodeModules)) {
    if (entry.startsWith(".")) continue
    const dirs = entry.startsWith("@")
      ? fs.readdirSync(path.join(nodeModules, entry)).map((sub) => path.join(nodeModules, entry, sub))
      : [path.join(nodeModules, entry)]
    for (const dir of dirs) {
      if (path.relative(nodeModules, dir) === name) found.push(dir)
      found.push(...copiesOf(path.join(dir, "node_modules"), name))
    }
  }
  return found
}

const work = makeTempDirSync("ets-pack-")
const app = path.join(work, "app")
const ws = path.join(work, "ws")
let packed: ReadonlyArray<string> = []

beforeAll(async () => {
  const stage = path.join(work, "package")
  fs.mkdirSync(stage)
  fs.copyFileSync(path.join(root, "package.json"), path.join(stage, "package.json"))
  // everything `files` names outside dist/ (which the build below makes)
  for (const entry of ourPackage.files.filter((f) => !f.startsWith("dist") && !f.startsWith("!"))) {
    fs.cpSync(path.join(root, entry), path.join(stage, entry), { recursive: true })
  }
  const tsc = path.join(root, "node_modules/typescript/bin/tsc")
  await ok(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", path.join(stage, "dist")], root, 180_000)
  await ok(process.execPath, ["scripts/bundle.mjs", "--dist", path.join(stage, "dist")], root, 120_000)

  // a run of the staged CLI (its dependencies found through a link; npm never packs node_modules)
  // leaves its code cache in dist/cli/, which must not be packed
  fs.symlinkSync(path.join(root, "node_modules"), path.join(stage, "node_modules"), "dir")
  await ok(process.execPath, [path.join(stage, "dist/cli/main.cjs"), "--version"], stage)
  if (!fs.readdirSync(path.join(stage, "dist/cli")).some((f) => f.endsWith(".cache"))) throw new Error("no code cache")
  const pack = await ok("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], stage)
  const [info]: Array<{ filename: string; files: Array<{ path: string }> }> = JSON.parse(pack.stdout)
  if (info === undefined) throw new Error(`npm pack printed no package: ${pack.stdout}`)
  packed = info.files.map((f) => f.path)

  fs.mkdirSync(app)
  fs.writeFileSync(
    path.join(app, "package.json"),
    JSON.stringify({ name: "pack-test-app", version: "1.0.0", private: true, type: "module" }, null, 2)
  )
  fs.mkdirSync(ws)
  fs.writeFileSync(path.join(ws, "notes.txt"), "one\ntwo\nthree\n")
  fs.copyFileSync(path.join(root, "test/fixtures/pdf/encrypted-empty-password.pdf"), path.join(ws, "doc.pdf"))

  await ok("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    "--loglevel=error",
    path.join(work, info.filename),
    ...withVersions(["effect", "@effect/platform", "@effect/platform-node", "@effect/ai", "typescript", "@types/node"])
  ], app, 240_000)
}, 600_000)

afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

describe("the packed package", { timeout: 240_000 }, () => {
  it("ships the library, its types, the CLI bundle with its workers, the license and the docs; no sources", () => {
    expect(packed).toEqual(expect.arrayContaining([
      "package.json",
      "README.md",
      "LICENSE",
      "docs/tools.md",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/cli/main.cjs",
      "dist/cli/cli.cjs",
      "dist/cli/undici.cjs",
      "dist/cli/worker.js",
      "dist/cli/pdfWorker.js",
      "dist/cli/THIRD-PARTY-LICENSES.txt",
      "dist/worker.js",
      "dist/pdfWorker.js",
      "dist/mcp.js",
      "dist/effect-ai.js",
      "dist/testing.js",
      "dist/tools/mcp/index.d.ts",
      "dist/interop/effectAi.d.ts",
      "dist/testing.d.ts"
    ]))
    expect(packed.filter((f) => /^(src|test|bench|scripts|\.ci)\//.test(f) || f.endsWith(".cache"))).toEqual([])
    // the library is its bundle: tsc's modules stay out, only their .d.ts files are packed
    expect(packed.filter((f) => /^dist\/(?!cli\/).+\/.+\.js$/.test(f))).toEqual([])
  })

  it("installs with its peers: npm ls is clean and there is exactly one copy of effect", async () => {
    await ok("npm", ["ls", "--all"], app)
    const ls = await ok("npm", ["ls", "effect", "--all", "--json"], app)
    expect(ls.stdout).toContain("\"effect-tool-system\"")
    expect(copiesOf(path.join(app, "node_modules"), "effect")).toEqual([path.join(app, "node_modules", "effect")])
  })

  it("runs the command line through npx: list (which leaves a code cache), and calls that use each worker", async () => {
    const cliDir = path.join(app, "node_modules/effect-tool-system/dist/cli")
    const caches = () => fs.readdirSync(cliDir).filter((f) => f.endsWith(".cache"))
    expect(caches()).toEqual([])
    const list = await ok("npx", ["--no", "effect-tool-system", "list"], app)
    expect(list.stdout).toContain("read_file")
    expect(caches()).toEqual([`cli.cjs.list.${process.version}-${process.arch}.cache`])

    const call = async (tool: string, args: object, ...flags: Array<string>) => {
      const r = await ok("npx", ["--no", "effect-tool-system", "call", tool, JSON.stringify(args), "--workspace", ws, ...flags], app)
      expect(r.stdout.trim().split("\n")).toHaveLength(1) // exactly the one JSON object
      return JSON.parse(r.stdout)
    }
    expect(await call("read_file", { filepath: "notes.txt", max_lines: 1 })).toMatchObject({ success: true, tool: "read_file" })
    expect(await call("execute_javascript", { code: "[1, 2].map((x) => x * 2)" }, "--yes")).toMatchObject({
      success: true,
      output: { result: "[2,4]" }
    })
    const pdf = await call("read_pdf", { filepath: "doc.pdf" })
    expect(pdf).toMatchObject({ success: true })
    expect(pdf.output).toContain("Encrypted page one says hello")
    // the first call left the calls' own cache, which the next ones started from
    expect(caches().sort()).toEqual([`cli.cjs.call.${process.version}-${process.arch}.cache`, `cli.cjs.list.${process.version}-${process.arch}.cache`])

    // `localhost` is refused by the check inside undici's connector, after the name resolved:
    // the command line found its side bundle (undici.cjs) and no request left the machine
    const fetched = await run("npx", ["--no", "effect-tool-system", "call", "fetch_url", JSON.stringify({ url: "http://localhost:8999/" })], app)
    expect(fetched.code).toBe(1)
    expect(JSON.parse(fetched.stdout)).toMatchObject({ success: false, errorCode: "TOOL_ERROR", details: { reason: "address" } })
    expect(JSON.parse(fetched.stdout).error).toContain("localhost resolves to")
  })

  it("an ESM script imports the package (and its /mcp, /effect-ai and /testing entries) and runs calls with Effect.runPromise; the Redis limiter without its optional peers says what it needs", async () => {
    const script = `
import { Effect } from "effect"
import * as Main from "effect-tool-system"
import { RateLimiter, ToolSystem, Workspace } from "effect-tool-system"
import { parseMcpConfig } from "effect-tool-system/mcp"
import { toEffectAiToolkit } from "effect-tool-system/effect-ai"
import { SANDBOX_ESCAPE_VECTORS, TestQuestionHandler } from "effect-tool-system/testing"

const program = Effect.gen(function*() {
  const tools = yield* ToolSystem
  const read = yield* tools.execute("read_file", { filepath: "notes.txt", max_lines: 2 })
  const js = yield* tools.execute("execute_javascript", { code: "6 * 7" }, { confirm: true })
  const pdf = yield* tools.execute("read_pdf", { filepath: "doc.pdf" })
  return { read, js, pdf }
})
const layer = ToolSystem.layerNode({ workspace: Workspace.layerFixed(process.argv[2]) })
const subpaths = typeof parseMcpConfig === "function" && typeof toEffectAiToolkit === "function" &&
  SANDBOX_ESCAPE_VECTORS.length > 0 && typeof TestQuestionHandler.layerScripted === "function"
// the fakes and the attack catalog are only in /testing
const testingOnly = ["SANDBOX_ESCAPE_VECTORS", "TestQuestionHandler"].filter((name) => name in Main)
// the Redis limiter's optional peers are not installed here
const redis = await Effect.runPromise(Effect.provide(RateLimiter, RateLimiter.layerRedis())).then(() => "built", String)
console.log(JSON.stringify({ ...await Effect.runPromise(Effect.provide(program, layer)), subpaths, testingOnly, redis }))
`
    fs.writeFileSync(path.join(app, "script.mjs"), script)
    const r = await ok(process.execPath, ["script.mjs", ws], app)
    const { js, pdf, read, redis, subpaths, testingOnly } = JSON.parse(r.stdout)
    expect(subpaths).toBe(true)
    expect(testingOnly).toEqual([])
    // without ioredis and @effect/experimental (optional peers), the Redis limiter says what it needs
    expect(redis).toContain("RateLimiter.layerRedis needs the packages ioredis@5 and @effect/experimental")
    expect(read).toMatchObject({ success: true, tool: "read_file" })
    expect(js).toMatchObject({ success: true, output: { result: "42" } })
    expect(pdf).toMatchObject({ success: true })
  })

  it("a TypeScript file type-checks against the installed .d.ts", async () => {
    const source = `
import { Effect, Schema } from "effect"
import { AgentMode, Tool, type ToolExecutionResult, ToolSystem } from "effect-tool-system"
import { type SandboxEscapeVector, TestUrlPolicy } from "effect-tool-system/testing"

const shout = Tool.make("shout", {
  description: "Upper-cases a text",
  parameters: Schema.Struct({ text: Schema.String }),
  readOnly: true,
  handler: ({ text }) => Effect.succeed(text.toUpperCase())
})

const program: Effect.Effect<ToolExecutionResult, never, ToolSystem> = Effect.gen(function*() {
  const tools = yield* ToolSystem
  return yield* tools.execute("shout", { text: "hi" }, { mode: AgentMode.Explore })
})

export const main = (): Promise<ToolExecutionResult> =>
  Effect.runPromise(Effect.provide(program, ToolSystem.layerNode({ tools: [shout] })))

// the testing entry's types: a fake layer fits the option it replaces
export const local = ToolSystem.layerNode({ tools: [shout], urlPolicy: TestUrlPolicy.layerAllowLoopback })
export const names = (vectors: ReadonlyArray<SandboxEscapeVector>): Array<string> => vectors.map((v) => v.name)

// @ts-expect-error: a tool's handler result must match what it declares
Tool.make("wrong", { description: "x", parameters: Schema.Struct({}), success: Schema.Number, handler: () => Effect.succeed("text") })
`
    fs.writeFileSync(path.join(app, "check.ts"), source)
    fs.writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          types: ["node"]
        },
        files: ["check.ts"]
      })
    )
    await ok(path.join(app, "node_modules/.bin/tsc"), ["-p", "."], app)
  })
})
