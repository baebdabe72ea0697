/**
 * The package as a user gets it: built from the sources into a staging copy
 * of the package (what `files` lists, with a fresh `dist/`: tsc's .d.ts files and the bundles, as
 * `npm run build` does), packed with `npm pack`, the tarball installed into a fresh project beside
 * `effect`, `@effect/platform-node`, TypeScript and `@types/node` at the versions this tree tests
 * with (read from its `node_modules`), then the command line, an ESM script and a TypeScript file
 * run against the installed copy on this tree's Node 22 (first on the children's PATH, so `npm`
 * and `npx` run on it too). Catches a file missing from `files`, an export missing from the
 * `.d.ts`, a dependency that only our devDependencies provided, and a second copy of `effect`.
 * The working tree's `dist/` is not read or written.
 *
 * `effect` and `@effect/platform-node` are peers. `redis`, our other peer, is optional, but `@effect/platform-node` 4.1.5 lists it as a required peer, so npm
 * installs it beside the package: `RateLimiter.layerRedis` builds (it connects lazily).
 *
 * Needs the npm registry (or npm's cache) for the packages installed beside it; takes one to
 * two minutes.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { makeTempDirSync } from "../helpers/tempDir.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
interface PackageJson {
  name: string
  version: string
  files: Array<string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}
const ourPackage: PackageJson = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
/** The package's version: the one the command line prints. */
const VERSION = ourPackage.version
const NAME = "effect-tool-system"

/** A package at the version installed in this tree (what its tests run with). */
const installedVersionOf = (name: string): string =>
  `${name}@${JSON.parse(fs.readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")).version}`

/** Installed beside the package: Effect 4 and Node's platform, the required peers, the TypeScript toolchain. */
const requiredPeers = Object.keys(ourPackage.peerDependencies ?? {}).filter((name) =>
  ourPackage.peerDependenciesMeta?.[name]?.optional !== true
)
const beside = [...new Set(["effect", "@effect/platform-node", ...requiredPeers, "typescript", "@types/node"])]
  .map(installedVersionOf)

/** The children run on this process's Node (22), `npm` and `npx` included (they start with `env node`). */
const childEnv = {
  ...process.env,
  PATH: [path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter),
  WORKSPACE_ROOT: "",
  npm_config_update_notifier: "false"
}

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeout = 180_000) =>
  new Promise<Run>((resolve) => {
    execFile(command, args, { cwd, encoding: "utf8", env: childEnv, timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
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
/** The `exports` entries of the package: each must be packed and importable. */
const entries = Object.keys((JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  exports: Record<string, unknown>
}).exports)

beforeAll(async () => {
  const stage = path.join(work, "package")
  fs.mkdirSync(stage)
  expect(ourPackage.name).toBe(NAME)
  // package.json and everything `files` names outside dist/ (which the build below makes)
  fs.copyFileSync(path.join(root, "package.json"), path.join(stage, "package.json"))
  for (const entry of ourPackage.files.filter((f) => !f.startsWith("dist") && !f.startsWith("!"))) {
    fs.cpSync(path.join(root, entry), path.join(stage, entry), { recursive: true })
  }
  const tsc = path.join(root, "node_modules/typescript/bin/tsc")
  await ok(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", path.join(stage, "dist")], root, 300_000)
  await ok(process.execPath, ["scripts/bundle.mjs", "--dist", path.join(stage, "dist")], root, 180_000)

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
    ...beside
  ], app, 300_000)
}, 900_000)

afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

describe("the packed package", { timeout: 240_000 }, () => {
  it("ships the library entries, their types, the CLI bundle with its workers, the licenses and the docs; no sources", () => {
    expect(entries).toEqual([".", "./mcp", "./effect-ai", "./testing", "./package.json"])
    expect(packed).toEqual(expect.arrayContaining([
      "package.json",
      "README.md",
      "LICENSE",
      "docs/tools.md",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/THIRD-PARTY-LICENSES.txt",
      "dist/cli/main.cjs",
      "dist/cli/cli.cjs",
      "dist/cli/undici.cjs",
      "dist/cli/mcp-sdk.cjs",
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

  it("installs beside Effect 4: npm ls is clean and there is exactly one copy of effect", async () => {
    await ok("npm", ["ls", "--all"], app)
    const ls = await ok("npm", ["ls", "effect", "--all", "--json"], app)
    expect(ls.stdout).toContain(`"${NAME}"`)
    expect(copiesOf(path.join(app, "node_modules"), "effect")).toEqual([path.join(app, "node_modules", "effect")])
    const effect = JSON.parse(fs.readFileSync(path.join(app, "node_modules/effect/package.json"), "utf8"))
    expect(effect.version).toMatch(/^4\.1\./)
    // our peer `redis` is optional, but @effect/platform-node 4.1.5 requires it: npm installs it
    expect(copiesOf(path.join(app, "node_modules"), "redis").length).toBeGreaterThan(0)
  })

  it("runs the command line through npx: --version, list (which leaves a code cache), and calls that use each worker", async () => {
    const cliDir = path.join(app, `node_modules/${NAME}/dist/cli`)
    const caches = () => fs.readdirSync(cliDir).filter((f) => f.endsWith(".cache"))
    expect(caches()).toEqual([])
    // (npx answers `--version` itself: the bin's link is run directly)
    const version = await ok(path.join(app, "node_modules/.bin", NAME), ["--version"], app)
    expect(version.stdout.trim()).toBe(VERSION)
    const list = await ok("npx", ["--no", NAME, "list"], app)
    expect(list.stdout).toContain("read_file")
    const nodeVersion = (await ok("node", ["--version"], app)).stdout.trim()
    expect(nodeVersion).toBe(process.version)
    expect(caches()).toEqual(expect.arrayContaining([`cli.cjs.list.${process.version}-${process.arch}.cache`]))

    const call = async (tool: string, args: object, ...flags: Array<string>) => {
      const r = await ok("npx", ["--no", NAME, "call", tool, JSON.stringify(args), "--workspace", ws, ...flags], app)
      expect(r.stdout.trim().split("\n")).toHaveLength(1) // exactly the one JSON object
      return JSON.parse(r.stdout)
    }
    expect(await call("read_file", { filepath: "notes.txt", max_lines: 1 })).toMatchObject({ success: true, tool: "read_file" })
    const js = await call("execute_javascript", { code: "[1, 2].map((x) => x * 2)" }, "--yes")
    expect(js).toMatchObject({ success: true, tool: "execute_javascript" })
    expect(JSON.stringify(js.output)).toContain("[2,4]")
    const pdf = await call("read_pdf", { filepath: "doc.pdf" })
    expect(pdf).toMatchObject({ success: true })
    expect(JSON.stringify(pdf.output)).toContain("Encrypted page one says hello")
    // the first call left the calls' own cache, which the next ones started from
    expect(caches()).toContain(`cli.cjs.call.${process.version}-${process.arch}.cache`)

    // `localhost` is refused by the URL policy: the command line found its side bundle
    // (undici.cjs) and no request left the machine
    const fetched = await run("npx", ["--no", NAME, "call", "fetch_url", JSON.stringify({ url: "http://localhost:8999/" })], app)
    expect(fetched.code, fetched.stderr).toBe(1)
    expect(JSON.parse(fetched.stdout)).toMatchObject({ success: false, tool: "fetch_url" })
  })

  it("each entry of `exports` imports in a plain ESM script", async () => {
    const script = `
const results = {}
for (const specifier of ${JSON.stringify(entries.filter((e) => e !== "./package.json").map((e) => e === "." ? NAME : `${NAME}/${e.slice(2)}`))}) {
  results[specifier] = await import(specifier).then((m) => Object.keys(m).length, (e) => String(e.stack ?? e).split("\\n").slice(0, 3).join(" | "))
}
console.log(JSON.stringify(results))
`
    fs.writeFileSync(path.join(app, "entries.mjs"), script)
    const r = await ok(process.execPath, ["entries.mjs"], app)
    const results: Record<string, number | string> = JSON.parse(r.stdout)
    // each entry loads and exports something (an error's text says which entry failed and why)
    for (const [specifier, exported] of Object.entries(results)) {
      expect({ specifier, exported }).toEqual({ specifier, exported: expect.any(Number) })
    }
    expect(Object.keys(results)).toEqual([NAME, `${NAME}/mcp`, `${NAME}/effect-ai`, `${NAME}/testing`])
  })

  it("an ESM script runs builtin tools with Effect.runPromise on ToolSystem.layerNode (with a /testing fake); the Redis limiter builds on the redis @effect/platform-node brings", async () => {
    const script = `
import { Effect } from "effect"
import * as fs from "node:fs"
import * as Main from "${NAME}"
import { AgentMode, RateLimiter, ToolSystem, Workspace } from "${NAME}"
import { SANDBOX_ESCAPE_VECTORS, TestModeGate, TestQuestionHandler, TestUrlPolicy } from "${NAME}/testing"

const program = Effect.gen(function*() {
  const tools = yield* ToolSystem
  const read = yield* tools.execute("read_file", { filepath: "notes.txt", max_lines: 2 })
  const js = yield* tools.execute("execute_javascript", { code: "6 * 7" }, { confirm: true })
  const pdf = yield* tools.execute("read_pdf", { filepath: "doc.pdf" })
  const blocked = yield* tools.execute("write_file", { filepath: "x.txt", content: "x" }, { mode: AgentMode.Explore })
  const listed = (yield* tools.openAITools()).length
  return { read, js, pdf, blocked, listed }
})
const layer = ToolSystem.layerNode({ workspace: Workspace.layerFixed(process.argv[2]), urlPolicy: TestUrlPolicy.layerAllowLoopback })
const testing = typeof TestQuestionHandler.layerScripted === "function" && typeof TestModeGate.layerOpen === "object" &&
  SANDBOX_ESCAPE_VECTORS.length > 0
// the fakes and the attack catalog are only in /testing
const testingOnly = ["TestQuestionHandler", "TestUrlPolicy", "TestModeGate", "SANDBOX_ESCAPE_VECTORS"].filter((name) => name in Main)
// redis is here, though our peer is optional: @effect/platform-node 4.1.5 has it as a required peer
const redis = await Effect.runPromise(Effect.provide(Effect.gen(function*() { return yield* RateLimiter }), RateLimiter.layerRedis())).then(() => "built", String)
// the result goes to a file: the library's logs (Effect's default logger) share stdout
fs.writeFileSync("result.json", JSON.stringify({ ...await Effect.runPromise(Effect.provide(program, layer)), testing, testingOnly, redis }))
`
    fs.writeFileSync(path.join(app, "script.mjs"), script)
    const r = await ok(process.execPath, ["script.mjs", ws], app)
    // what the library logged (on stdout, Effect's default logger), in the test's output
    console.log(`script.mjs printed: ${JSON.stringify(r.stdout.slice(0, 2000))}`)
    const { blocked, js, listed, pdf, read, redis, testing, testingOnly } = JSON.parse(
      fs.readFileSync(path.join(app, "result.json"), "utf8")
    )
    expect(testing).toBe(true)
    expect(testingOnly).toEqual([])
    expect(read).toMatchObject({ success: true, tool: "read_file" })
    expect(js).toMatchObject({ success: true, tool: "execute_javascript" })
    expect(JSON.stringify(js.output)).toContain("42")
    expect(pdf).toMatchObject({ success: true })
    expect(blocked).toMatchObject({ success: false, errorCode: "MODE_BLOCKED" })
    expect(listed).toBeGreaterThanOrEqual(50)
    // the limiter builds on the redis @effect/platform-node's peer brought (it connects lazily)
    expect(redis).toBe("built")
  })

  it("a TypeScript file type-checks (strict) against the installed .d.ts of every entry", async () => {
    const source = `
import { Effect, Schema } from "effect"
import { AgentMode, Tool, type ToolExecutionResult, ToolSystem } from "${NAME}"
import { type McpServersConfig, parseMcpConfig } from "${NAME}/mcp"
import { toEffectAiToolkit } from "${NAME}/effect-ai"
import { type SandboxEscapeVector, SANDBOX_ESCAPE_VECTORS, TestModeGate, TestQuestionHandler, TestUrlPolicy } from "${NAME}/testing"

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
export const asked = TestQuestionHandler.layerScripted([])
export const open = ToolSystem.layerNode({ modeGate: TestModeGate.layerOpen })
export const vectorNames: ReadonlyArray<string> = SANDBOX_ESCAPE_VECTORS.map((vector: SandboxEscapeVector) => vector.name)
export const parsed = parseMcpConfig
export type Servers = McpServersConfig
export const toolkit = toEffectAiToolkit

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
    await ok(process.execPath, [path.join(app, "node_modules/typescript/bin/tsc"), "-p", "."], app)
  })
})
