/**
 * The shipped `bin` (`src/cli/launch.ts`, `dist/cli/main.cjs`): runs the `cli.cjs` beside it as
 * Node's CommonJS loader would, through the V8 code cache of `codeCache.ts`. Built from the
 * sources here (esbuild, as `scripts/bundle.mjs` builds it) and run as a child process beside a
 * small stand-in `cli.cjs`, so the test needs no `npm run build` and sees what each run left.
 *
 * That the cache is used at all shows the way `codeCache.ts` explains its digest: V8 checks a
 * cache against the source's length only, so data made for another source of the same length,
 * given to V8, runs that other source's code.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as esbuild from "esbuild"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { cacheFileOf, CODE_CACHE_ENV, digestOf } from "../../src/cli/codeCache.js"
import { commonJs } from "../../scripts/commonJsBuild.mjs"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { root } from "./helpers.js"

const dir = makeTempDirSync("ets-launch-")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const launcher = path.join(dir, "main.cjs")

beforeAll(async () => {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: [path.join(root, "src/cli/launch.ts")],
    outfile: launcher,
    bundle: true,
    platform: "node",
    ...commonJs,
    logLevel: "error"
  })
})

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

let n = 0
/** A directory with the launcher and `cli.cjs` (`source`) in it: what `dist/cli/` holds. */
const install = (source: string): string => {
  const sub = path.join(dir, String(n++))
  fs.mkdirSync(sub)
  fs.copyFileSync(launcher, path.join(sub, "main.cjs"))
  fs.writeFileSync(path.join(sub, "cli.cjs"), source)
  return sub
}

const launch = (sub: string, args: ReadonlyArray<string> = [], env: NodeJS.ProcessEnv = {}) =>
  new Promise<Run>((resolve) => {
    const environment: NodeJS.ProcessEnv = { ...process.env, ...env }
    if (env[CODE_CACHE_ENV] === undefined) delete environment[CODE_CACHE_ENV]
    execFile(
      process.execPath,
      [path.join(sub, "main.cjs"), ...args],
      { cwd: sub, encoding: "utf8", env: environment, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    )
  })

const bundleOf = (sub: string) => path.join(sub, "cli.cjs")
const cacheOf = (sub: string) => cacheFileOf(bundleOf(sub))
/** What a cache is made for: the bundle file's bytes as they are on disk. */
const digestOfBundle = (sub: string) => digestOf(fs.readFileSync(bundleOf(sub)))
const inode = (file: string) => fs.statSync(file).ino

/** A bundle that prints one word (the same length for every word of the same length). */
const saying = (word: string) => `#!/usr/bin/env node\nconsole.log(${JSON.stringify(word)})\n`

describe("the launcher (dist/cli/main.cjs)", { timeout: 120_000 }, () => {
  it("runs cli.cjs as a CommonJS module: its #! line, __filename, __dirname, exports, require beside it, import(), argv", async () => {
    const sub = install(
      [
        "#!/usr/bin/env node",
        "const { join } = require('node:path')",
        "const helper = require('./helper.cjs')",
        "const where = new Error('here').stack.split('\\n')[1]",
        "console.log(JSON.stringify({",
        "  file: __filename, dir: __dirname, helper, exportsObject: typeof exports === 'object' && exports !== null,",
        "  sameExports: exports === module.exports, inBundle: where.includes(join(__dirname, 'cli.cjs')),",
        "  args: process.argv.slice(2), text: '#! stays'",
        "}))",
        "import('node:path').then((p) => console.log('import', p.basename(__filename)))"
      ].join("\n")
    )
    fs.writeFileSync(path.join(sub, "helper.cjs"), "module.exports = 'helper beside the bundle'")
    const run = await launch(sub, ["list", "--json"])
    expect(run.code).toBe(0)
    expect(run.stderr).not.toContain("Error") // Node 20 warns that import() here is experimental
    const [first, second] = run.stdout.trim().split("\n")
    expect(JSON.parse(first ?? "")).toEqual({
      file: bundleOf(sub),
      dir: sub,
      helper: "helper beside the bundle",
      exportsObject: true,
      sameExports: true,
      inBundle: true,
      args: ["list", "--json"],
      text: "#! stays"
    })
    expect(second).toBe("import cli.cjs")
  })

  it("a bundle without a #! line runs as written, a #! further on left alone", async () => {
    const sub = install("console.log('#!' + 'x')\n")
    expect(await launch(sub)).toEqual({ code: 0, stdout: "#!x\n", stderr: "" })
  })

  it("the first run leaves a cache made for the bundle's source; the next uses it and leaves it as it was", async () => {
    const sub = install(saying("first"))
    expect(fs.existsSync(cacheOf(sub))).toBe(false)
    expect(await launch(sub)).toEqual({ code: 0, stdout: "first\n", stderr: "" })
    const cache = fs.readFileSync(cacheOf(sub))
    expect(cache.subarray(0, 32).equals(digestOfBundle(sub))).toBe(true)
    expect(cache.length).toBeGreaterThan(32)
    expect(fs.readdirSync(sub).sort()).toEqual(["cli.cjs", path.basename(cacheOf(sub)), "main.cjs"].sort())
    const written = inode(cacheOf(sub))
    expect(await launch(sub)).toEqual({ code: 0, stdout: "first\n", stderr: "" })
    expect(inode(cacheOf(sub))).toBe(written) // not written again (a write is a new file renamed over it)
    expect(fs.readFileSync(cacheOf(sub)).equals(cache)).toBe(true)
  })

  it("each command keeps a cache of its own, other command lines share one", async () => {
    const sub = install(saying("commands"))
    const of = (command?: string) => cacheFileOf(bundleOf(sub), command)
    for (const args of [["list"], ["call", "read_file"], ["lst"], []]) {
      expect(await launch(sub, args)).toEqual({ code: 0, stdout: "commands\n", stderr: "" })
    }
    expect(fs.readdirSync(sub).sort()).toEqual(
      ["cli.cjs", "main.cjs", ...[of("list"), of("call"), of()].map((f) => path.basename(f))].sort()
    )
    const written = [of("list"), of("call"), of()].map(inode)
    await launch(sub, ["call", "write_file"])
    await launch(sub, ["list", "--json"])
    expect([of("list"), of("call"), of()].map(inode)).toEqual(written) // each run found its own
  })

  it("the cache is given to V8 when made for this source, and replaced when made for another", async () => {
    const sub = install(saying("older"))
    await launch(sub)
    const olderData = fs.readFileSync(cacheOf(sub)).subarray(32)
    fs.writeFileSync(bundleOf(sub), saying("newer")) // same length: V8 alone would accept older's data
    expect(await launch(sub)).toEqual({ code: 0, stdout: "newer\n", stderr: "" })
    expect(fs.readFileSync(cacheOf(sub)).subarray(0, 32).equals(digestOfBundle(sub))).toBe(true) // replaced
    // older's data under newer's digest: the launcher hands it to V8, which runs older's code
    fs.writeFileSync(cacheOf(sub), Buffer.concat([digestOfBundle(sub), olderData]))
    const planted = inode(cacheOf(sub))
    expect(await launch(sub)).toEqual({ code: 0, stdout: "older\n", stderr: "" })
    expect(inode(cacheOf(sub))).toBe(planted) // accepted by V8: not written again
  })

  it("a cache V8 rejects (another Node or flags, or damaged) is replaced by a fresh one, which the next run keeps", async () => {
    const sub = install(saying("fresh"))
    const damaged = Buffer.concat([digestOfBundle(sub), Buffer.from("not V8's data")])
    fs.writeFileSync(cacheOf(sub), damaged)
    expect(await launch(sub)).toEqual({ code: 0, stdout: "fresh\n", stderr: "" })
    const fresh = fs.readFileSync(cacheOf(sub))
    expect(fresh.equals(damaged)).toBe(false)
    expect(fresh.subarray(0, 32).equals(digestOfBundle(sub))).toBe(true)
    const written = inode(cacheOf(sub))
    expect(await launch(sub)).toEqual({ code: 0, stdout: "fresh\n", stderr: "" })
    expect(inode(cacheOf(sub))).toBe(written)
  })

  it(`${CODE_CACHE_ENV}=0: no cache is written, nor one that is there read`, async () => {
    const off = { [CODE_CACHE_ENV]: "0" }
    const sub = install(saying("plain"))
    expect(await launch(sub, [], off)).toEqual({ code: 0, stdout: "plain\n", stderr: "" })
    expect(fs.readdirSync(sub).sort()).toEqual(["cli.cjs", "main.cjs"])
    // a cache that would run other code, were it read
    await launch(sub)
    const plainData = fs.readFileSync(cacheOf(sub)).subarray(32)
    fs.writeFileSync(bundleOf(sub), saying("other"))
    const planted = Buffer.concat([digestOfBundle(sub), plainData])
    fs.writeFileSync(cacheOf(sub), planted)
    expect(await launch(sub, [], off)).toEqual({ code: 0, stdout: "other\n", stderr: "" })
    expect(fs.readFileSync(cacheOf(sub)).equals(planted)).toBe(true)
  })

  it("a side bundle cli.cjs requires beside it runs once, through a cache of its own for the command", async () => {
    const sub = install(
      [
        "const first = require('./side.cjs')",
        "const again = require('./side.cjs')",
        "console.log(JSON.stringify({ same: first === again, runs: globalThis.sideRuns, side: first }))"
      ].join("\n")
    )
    const side = path.join(sub, "side.cjs")
    fs.writeFileSync(
      side,
      "globalThis.sideRuns = (globalThis.sideRuns ?? 0) + 1\nmodule.exports = { file: __filename, dir: __dirname, path: typeof require('node:path').join }\n"
    )
    const expected = { same: true, runs: 1, side: { file: side, dir: sub, path: "function" } }
    const run = await launch(sub, ["mcp"])
    expect(run.stderr).toBe("")
    expect(JSON.parse(run.stdout)).toEqual(expected)
    const sideCache = cacheFileOf(side, "mcp")
    expect(fs.readFileSync(sideCache).subarray(0, 32).equals(digestOf(fs.readFileSync(side)))).toBe(true)
    const written = inode(sideCache)
    expect(JSON.parse((await launch(sub, ["mcp"])).stdout)).toEqual(expected)
    expect(inode(sideCache)).toBe(written) // found and used: not written again
    // another command, its own cache; none at all with the cache turned off
    expect(JSON.parse((await launch(sub, ["list"], { [CODE_CACHE_ENV]: "0" })).stdout)).toEqual(expected)
    expect(fs.existsSync(cacheFileOf(side, "list"))).toBe(false)
    await launch(sub, ["list"])
    expect(fs.existsSync(cacheFileOf(side, "list"))).toBe(true)
  })

  it("a side bundle that throws is not kept: the next require runs it again", async () => {
    const sub = install(
      [
        "try { require('./side.cjs') } catch (error) { console.log(error.message) }",
        "console.log(require('./side.cjs'))"
      ].join("\n")
    )
    fs.writeFileSync(
      path.join(sub, "side.cjs"),
      "globalThis.sideRuns = (globalThis.sideRuns ?? 0) + 1\nif (globalThis.sideRuns === 1) throw new Error('first run fails')\nmodule.exports = 'second run'\n"
    )
    expect(await launch(sub)).toEqual({ code: 0, stdout: "first run fails\nsecond run\n", stderr: "" })
  })

  it("a bundle that does not compile to a module function is refused, naming it", async () => {
    const sub = install("}); ({")
    const run = await launch(sub, [], { [CODE_CACHE_ENV]: "0" })
    expect(run.code).toBe(1)
    expect(run.stdout).toBe("")
    expect(run.stderr).toContain(`Error: ${bundleOf(sub)} did not compile to a module function`)
  })
})
