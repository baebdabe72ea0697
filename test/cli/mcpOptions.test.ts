/**
 * The options of `effect-tool-system mcp` as the command line reads them, run in process
 * (`cliInProcess`) on streams of the test's own: `--rate-limit TOOL=RPM` (a positive number
 * each, or a usage error), the OAuth flags (refused without `--http`, and the issuer and
 * audience only together), and `--audit`, whose record of a served call is on disk when the
 * client gets its answer.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { cliInProcess } from "./helpers.js"
import { ownStreams, restoreProcessStreams, serveInProcess, textOf } from "./mcpInProcess.js"

restoreProcessStreams()

// the command's modules (the server's, and the ported tools a rate limit serves too) load once, here
beforeAll(() => Promise.all([import("../../src/tools/mcp/stdio.js"), import("../../src/tools/ported/index.js")]), 60_000)

/** `mcp ARGS...` with no client: its input ends at once, so a command that serves stdio ends too. */
const refused = (...args: Array<string>) => {
  ownStreams().stdin.end()
  return cliInProcess("mcp", ...args)
}

/** `mcp ARGS...` serving a connected client. */
const serve = (...args: Array<string>) => serveInProcess("mcp-options", ...args)

const busyPort = () =>
  new Promise<{ readonly port: number; readonly close: () => void }>((resolve) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resolve({ port: typeof address === "object" && address !== null ? address.port : 0, close: () => server.close() })
    })
  })

const rateLimitUsage = (pairs: Record<string, string>) => ({
  code: 2,
  stdout: "",
  stderr: "Invalid value for flag --rate-limit: \"[object Object]\". Expected: " +
    `--rate-limit wants TOOL=RPM with RPM a positive number, not ${JSON.stringify(pairs)}\n`
})

describe("effect-tool-system mcp --rate-limit", { timeout: 60_000 }, () => {
  it("takes a positive number of calls a minute for each tool: the second call within the minute is refused", async () => {
    const workspace = makeTempDirSync("ets-mcp-options-")
    try {
      fs.writeFileSync(path.join(workspace, "notes.txt"), "hello\n")
      const { client, done, end } = await serve("--workspace", workspace, "--rate-limit", "read_file=1")
      const read = () => client.callTool({ name: "read_file", arguments: { filepath: "notes.txt" } })
      const first = await read()
      expect(first.isError).toBeUndefined()
      expect(textOf(first)).toBe("hello\n")
      const second = await read()
      expect(second.isError).toBe(true)
      expect(textOf(second)).toMatch(/^RATE_LIMITED: /)
      end()
      expect((await done).code).toBe(0)
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true })
    }
  })

  it("refuses zero, infinity or a word as a usage error that names what it was given, serving nothing", async () => {
    expect(await refused("--rate-limit", "read_file=0")).toEqual(rateLimitUsage({ read_file: "0" }))
    expect(await refused("--rate-limit", "read_file=Infinity")).toEqual(rateLimitUsage({ read_file: "Infinity" }))
    expect(await refused("--rate-limit", "read_file=abc")).toEqual(rateLimitUsage({ read_file: "abc" }))
  })

  it("refuses the whole option when one of its limits is not a positive number", async () => {
    expect(await refused("--rate-limit", "read_file=2", "--rate-limit", "write_file=-1")).toEqual(
      rateLimitUsage({ read_file: "2", write_file: "-1" })
    )
  })
})

describe("effect-tool-system mcp --oauth-*", { timeout: 60_000 }, () => {
  it("any one of the OAuth flags without --http is refused, serving nothing", async () => {
    for (const flags of [["--oauth-issuer", "http://127.0.0.1:9"], ["--oauth-jwks", "http://127.0.0.1:9/jwks"]]) {
      const { code, stdout, stderr } = await refused(...flags)
      expect({ code, stdout }).toEqual({ code: 1, stdout: "" })
      expect(stderr).toContain("--oauth-issuer and --oauth-audience serve over HTTP only: add --http HOST:PORT")
    }
  })

  it("an issuer without an audience, or an audience without an issuer, is refused before the server listens", async () => {
    const busy = await busyPort()
    try {
      const http = `127.0.0.1:${busy.port}`
      for (const flags of [["--oauth-issuer", "http://127.0.0.1:9"], ["--oauth-audience", `http://${http}/mcp`]]) {
        const { code, stdout, stderr } = await refused("--http", http, ...flags)
        expect({ code, stdout }).toEqual({ code: 1, stdout: "" })
        expect(stderr).toContain("--oauth-issuer and --oauth-audience go together")
      }
    } finally {
      busy.close()
    }
  })
})

describe("effect-tool-system mcp --audit", { timeout: 60_000 }, () => {
  it("a served call's record is in the file when its answer reaches the client", async () => {
    const workspace = makeTempDirSync("ets-mcp-options-")
    try {
      fs.writeFileSync(path.join(workspace, "notes.txt"), "hello\n")
      const file = path.join(workspace, "audit.jsonl")
      const { client, done, end } = await serve("--workspace", workspace, "--audit", file)
      const read = await client.callTool({ name: "read_file", arguments: { filepath: "notes.txt" } })
      expect(textOf(read)).toBe("hello\n")
      const records = fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "")
      expect(records.map((line) => JSON.parse(line))).toMatchObject([{ tool: "read_file", success: true }])
      end()
      expect((await done).code).toBe(0)
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true })
    }
  })
})
