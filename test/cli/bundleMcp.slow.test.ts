/**
 * The MCP SDK's side bundle as `npm run build` ships it (`dist/cli/mcp-sdk.cjs`, see
 * `scripts/bundle.mjs`): the command line without it still lists, describes and calls (so
 * those never load it), and with it the `mcp` command serves over stdio and Streamable HTTP and
 * `--mcp-config` bridges a server's tools into `list` and `call`. Each run is the built `bin`
 * (`cli/main.cjs`) as a child process, the SDK required through the launcher's code cache.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { cacheFileOf } from "../../src/cli/codeCache.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { root, runNode } from "./helpers.js"

// under node_modules/.cache (ignored by git), where the workers find the packages they import
const cacheDir = path.join(root, "node_modules", ".cache")
fs.mkdirSync(cacheDir, { recursive: true })
const dist = fs.mkdtempSync(path.join(cacheDir, "ets-bundle-mcp-"))
const ws = makeTempDirSync("ets-bundle-mcp-ws-")
fs.writeFileSync(path.join(ws, "notes.txt"), "one\ntwo\nthree\n")
const children: Array<ChildProcess> = []
afterAll(() => {
  for (const child of children) child.kill("SIGKILL")
  fs.rmSync(dist, { recursive: true, force: true })
  fs.rmSync(ws, { recursive: true, force: true })
})

const bin = path.join(dist, "cli", "main.cjs")
const built = (...args: Array<string>) => runNode([bin, ...args])

/** The launcher and `cli.cjs` alone, in a directory of their own: no side bundle to load. */
const cliOnly = path.join(dist, "cli-only")

beforeAll(async () => {
  const build = await runNode([path.join(root, "scripts/bundle.mjs"), "--dist", dist])
  expect(build.code, build.stderr).toBe(0)
  fs.mkdirSync(cliOnly)
  for (const file of ["main.cjs", "cli.cjs"]) fs.copyFileSync(path.join(dist, "cli", file), path.join(cliOnly, file))
}, 120_000)

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bundle-test", version: "1.0.0" } }
}
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" }

interface Answer {
  readonly id?: number
  readonly result?: { readonly tools?: ReadonlyArray<{ readonly name: string }>; readonly content?: ReadonlyArray<{ readonly text?: string }> }
  readonly error?: unknown
}

/**
 * The built `mcp` command over stdio: sends `messages`, waits for an answer to each request
 * (an `id`), then closes its stdin and waits for it to end. Its answers, exit code and stderr.
 */
const mcpOverStdio = (args: ReadonlyArray<string>, messages: ReadonlyArray<object>) =>
  new Promise<{ answers: Array<Answer>; code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "mcp", ...args], { cwd: root, env: { ...process.env, WORKSPACE_ROOT: "" } })
    children.push(child)
    const expected = messages.filter((m) => "id" in m).length
    const answers: Array<Answer> = []
    let stdout = ""
    let stderr = ""
    const timer = setTimeout(() => reject(new Error(`no answers in time; stderr: ${stderr}`)), 30_000)
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      const lines = stdout.split("\n")
      stdout = lines.pop() ?? ""
      for (const line of lines) if (line.trim() !== "") answers.push(JSON.parse(line))
      if (answers.length >= expected) child.stdin.end()
    })
    child.on("exit", (code) => {
      clearTimeout(timer)
      resolve({ answers, code, stderr })
    })
    for (const message of messages) child.stdin.write(`${JSON.stringify(message)}\n`)
  })

/** An MCP configuration bridging the echo test server (the 1.x SDK's, a dev dependency). */
const echoConfig = () => {
  const file = path.join(ws, "mcp.json")
  const server = path.join(root, "test/tools/mcp/servers/echo.mjs")
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [server] } } }))
  return file
}

describe("the MCP side bundle (dist/cli/mcp-sdk.cjs)", { timeout: 90_000 }, () => {
  it("list, describe, call and --version run without it: they never load the MCP SDK", async () => {
    const only = (...args: Array<string>) => runNode([path.join(cliOnly, "main.cjs"), ...args])
    expect((await only("--version")).code).toBe(0)
    const listed = await only("list", "--json")
    expect(listed.stderr).toBe("")
    expect(JSON.parse(listed.stdout)).toHaveLength(52)
    expect((await only("describe", "read_file")).code).toBe(0)
    const read = await only("call", "read_file", JSON.stringify({ filepath: "notes.txt" }), "--workspace", ws)
    expect(read.code).toBe(0)
    expect(JSON.parse(read.stdout)).toMatchObject({ success: true, output: "one\ntwo\nthree\n" })
    // and the one command that needs it says so
    const mcp = await only("mcp", "--workspace", ws)
    expect(mcp.code).not.toBe(0)
    expect(mcp.stderr).toContain("mcp-sdk.cjs")
  })

  it("mcp over stdio: initialize, tools/list, tools/call; the SDK gets a code cache of its own", async () => {
    const { answers, code, stderr } = await mcpOverStdio(["--workspace", ws], [
      INITIALIZE,
      INITIALIZED,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "read_file", arguments: { filepath: "notes.txt" } } }
    ])
    expect(code, stderr).toBe(0)
    const byId = new Map(answers.map((a) => [a.id, a]))
    expect(byId.get(1)).toMatchObject({ result: { serverInfo: { name: "effect-tool-system" } } })
    expect(byId.get(2)?.result?.tools?.map((t) => t.name)).toEqual(expect.arrayContaining(["read_file", "diff_text"]))
    expect(byId.get(3)?.result?.content?.[0]?.text).toContain("three")
    expect(fs.existsSync(cacheFileOf(path.join(dist, "cli", "mcp-sdk.cjs"), "mcp"))).toBe(true)
  })

  it("mcp --http: initialize and tools/list over Streamable HTTP on 127.0.0.1", async () => {
    const child = spawn(process.execPath, [bin, "mcp", "--workspace", ws, "--http", "127.0.0.1:0"], {
      cwd: root,
      env: { ...process.env, WORKSPACE_ROOT: "" },
      stdio: ["ignore", "ignore", "pipe"]
    })
    children.push(child)
    const url = await new Promise<string>((resolve, reject) => {
      let stderr = ""
      const timer = setTimeout(() => reject(new Error(`not serving in time: ${stderr}`)), 30_000)
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
        const serving = /Serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)
        if (serving !== null) {
          clearTimeout(timer)
          resolve(serving[1]!)
        }
      })
    })
    const post = async (message: object, headers: Record<string, string> = {}) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(message)
      })
      const text = await response.text()
      // one JSON answer, or one SSE event holding it
      const json = response.headers.get("content-type")?.includes("text/event-stream")
        ? text.split("\n").find((l) => l.startsWith("data: "))?.slice(6) ?? ""
        : text
      return { status: response.status, session: response.headers.get("mcp-session-id"), answer: JSON.parse(json) as Answer }
    }
    const init = await post(INITIALIZE)
    expect(init.status).toBe(200)
    expect(init.answer).toMatchObject({ result: { serverInfo: { name: "effect-tool-system" } } })
    const headers = { "mcp-protocol-version": "2025-11-25", ...(init.session === null ? {} : { "mcp-session-id": init.session }) }
    const listed = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, headers)
    expect(listed.answer.result?.tools?.map((t) => t.name)).toEqual(expect.arrayContaining(["read_file"]))
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
  })

  it("--mcp-config: list shows the bridged server's tools, call runs one", async () => {
    const config = echoConfig()
    const listed = await built("list", "--json", "--mcp-config", config)
    expect(listed.code, listed.stderr).toBe(0)
    const names = JSON.parse(listed.stdout).map((t: { name: string }) => t.name)
    expect(names).toEqual(expect.arrayContaining(["read_file", "echo__echo"]))
    const called = await built("call", "echo__echo", JSON.stringify({ text: "through the bundle" }), "--mcp-config", config, "--workspace", ws, "--yes")
    expect(called.code, called.stderr).toBe(0)
    expect(JSON.parse(called.stdout)).toMatchObject({ success: true, output: "through the bundle", tool: "echo__echo" })
  })
})
