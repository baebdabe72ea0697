/**
 * The command line as `npm run build` ships it: `scripts/bundle.mjs` builds `dist/` into a temp
 * directory below `node_modules`, and its `bin` (`cli/main.cjs`, the launcher, running `cli.cjs` through the code
 * cache) is run as a child process on this Node: the commands, their exit codes, a call that
 * runs in a worker bundled beside `cli.cjs`, and the code cache left by a run.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { cacheFileOf } from "../../src/cli/codeCache.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { root, runNode } from "./helpers.js"
import { VERSION } from "../../src/version.js"

// under node_modules/.cache (ignored by git), where the workers find the packages they import
// (QuickJS, pdf.js) as an installed package's do
const cacheDir = path.join(root, "node_modules", ".cache")
fs.mkdirSync(cacheDir, { recursive: true })
const dist = fs.mkdtempSync(path.join(cacheDir, "ets-bundle-"))
const ws = makeTempDirSync("ets-bundle-ws-")
fs.writeFileSync(path.join(ws, "notes.txt"), "one\ntwo\nthree\n")
afterAll(() => {
  fs.rmSync(dist, { recursive: true, force: true })
  fs.rmSync(ws, { recursive: true, force: true })
})

const bin = path.join(dist, "cli", "main.cjs")
/** Runs the built `effect-tool-system ARGS...` from the repository root. */
const built = (...args: Array<string>) => runNode([bin, ...args])

beforeAll(async () => {
  const build = await runNode([path.join(root, "scripts/bundle.mjs"), "--dist", dist])
  expect(build.code, build.stderr).toBe(0)
}, 120_000)

describe("the built command line (dist/cli/main.cjs)", { timeout: 60_000 }, () => {
  it("is the launcher, cli.cjs, undici.cjs, mcp-sdk.cjs and the workers beside them, with the licenses", () => {
    expect(fs.readdirSync(path.join(dist, "cli")).filter((f) => !f.endsWith(".map")).sort()).toEqual(
      ["THIRD-PARTY-LICENSES.txt", "cli.cjs", "main.cjs", "mcp-sdk.cjs", "pdfWorker.js", "undici.cjs", "worker.js"]
    )
  })

  it("prints its version and lists the tools; the run leaves the list command's code cache", async () => {
    expect(await built("--version")).toEqual({ code: 0, stdout: `${VERSION}\n\n`, stderr: "" })
    const listed = await built("list", "--json")
    expect(listed.code).toBe(0)
    const names = JSON.parse(listed.stdout).map((t: { name: string }) => t.name)
    expect(names).toHaveLength(52)
    expect(names).toEqual(expect.arrayContaining(["read_file", "execute_javascript", "diff_text"]))
    expect(fs.existsSync(cacheFileOf(path.join(dist, "cli", "cli.cjs"), "list"))).toBe(true)
  })

  it("call: 0 with the result on stdout, 1 when a gate refuses, 2 on a usage error, 3 on an escape", async () => {
    const read = await built("call", "read_file", JSON.stringify({ filepath: "notes.txt", max_lines: 1 }), "--workspace", ws, "--version", "1.x")
    expect(read.code).toBe(0)
    expect(JSON.parse(read.stdout)).toMatchObject({ success: true, output: "one\n... (2 more lines)", version: "1.0.0" })
    const refused = await built("call", "write_file", JSON.stringify({ filepath: "out.txt", content: "x" }), "--workspace", ws)
    expect(refused.code).toBe(1)
    expect(JSON.parse(refused.stdout)).toMatchObject({ errorCode: "CONFIRMATION_REQUIRED" })
    const usage = await built("call", "read_file", "{not json", "--workspace", ws)
    expect(usage).toMatchObject({ code: 2, stdout: "" })
    expect(usage.stderr).toContain("Invalid JSON arguments")
    expect(await built("list", "--mode", "nope")).toMatchObject({ code: 2, stdout: "" })
    const escape = await built("call", "read_file", JSON.stringify({ filepath: "../../etc/passwd" }), "--workspace", ws)
    expect(escape).toMatchObject({ code: 3, stdout: "" })
    expect(escape.stderr).toContain("PATH_TRAVERSAL")
  })

  it("list loads none of node:child_process, node:dns, node:readline (start time); a git call and a fetch do", async () => {
    // Node's builtins a run loaded, printed on stderr at exit by a script required before the launcher
    const probe = path.join(ws, "builtins.cjs")
    fs.writeFileSync(
      probe,
      `process.on("exit", () => require("node:fs").writeSync(2, "\\n" + JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13))) + "\\n"))`
    )
    const probed = async (...args: Array<string>) => {
      const run = await runNode(["--require", probe, bin, ...args])
      const builtins: ReadonlyArray<string> = JSON.parse(run.stderr.trim().split("\n").at(-1) ?? "[]")
      return { ...run, builtins }
    }
    const listed = await probed("list")
    expect(listed.code).toBe(0)
    expect(listed.builtins).toContain("fs")
    expect(listed.builtins.filter((m) => ["child_process", "dns", "readline"].includes(m))).toEqual([])
    // the probe sees them where they are used: git is spawned (ws is no repository: the tool says so)
    const git = await probed("call", "git_status", "{}", "--workspace", ws)
    expect(git.stdout).toContain("not a git repository")
    expect(git.builtins).toContain("child_process")
    // a host name is looked up through undici (undici.cjs, required by cli.cjs), then refused
    const fetched = await probed("call", "fetch_url", JSON.stringify({ url: "http://localhost/" }), "--workspace", ws)
    expect(JSON.parse(fetched.stdout)).toMatchObject({ success: false, details: { reason: "address" } })
    expect(fetched.stdout).toContain("localhost resolves to 127.0.0.1")
    expect(fetched.builtins).toContain("dns")
  })

  it("execute_javascript runs in the sandbox worker bundled beside cli.cjs", async () => {
    const ran = await built("call", "execute_javascript", JSON.stringify({ code: "console.log('hi'); 6 * 7" }), "--workspace", ws, "--yes")
    expect(ran.stderr).toBe("")
    expect(ran.code).toBe(0)
    expect(JSON.parse(ran.stdout)).toMatchObject({ success: true, tool: "execute_javascript" })
    expect(ran.stdout).toContain("42")
  })
})
