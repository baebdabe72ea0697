/**
 * `--mcp-config FILE` on describe, export and explain: the bridged servers' tools are there.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { nodeServer } from "../tools/mcp/helpers.js"
import { cliInProcess as cli } from "./helpers.js"

const dir = makeTempDirSync("ets-mcp-config-")
const config = path.join(dir, "mcp.json")
fs.writeFileSync(config, JSON.stringify({ mcpServers: { echo: nodeServer("echo.mjs", [], { toolsWithoutConfirmation: ["echo"] }) } }))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("--mcp-config on describe, export and explain", { timeout: 120_000 }, () => {
  it("describe prints a bridged tool's spec; without the config it is not found", async () => {
    const r = await cli("describe", "echo__echo", "--mcp-config", config)
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ name: "echo__echo", parameters: { required: ["text"] } })
    expect((await cli("describe", "echo__echo")).code).toBe(1)
  })

  it("export includes the bridged tools", async () => {
    const r = await cli("export", "--format", "mcp", "--mcp-config", config)
    expect(r.code).toBe(0)
    const names = JSON.parse(r.stdout).map((t: { name: string }) => t.name)
    expect(names).toContain("echo__echo")
    expect(names).toContain("read_file")
  })

  it("explain checks a bridged tool's arguments against its schema", async () => {
    const ok = await cli("explain", "echo__echo", JSON.stringify({ text: "hi" }), "--mcp-config", config)
    expect(ok.code).toBe(0)
    const bad = await cli("explain", "echo__echo", JSON.stringify({ text: "" }), "--mcp-config", config, "--json")
    expect(bad.code).toBe(1)
    expect(JSON.parse(bad.stdout)).toMatchObject({ wouldRun: false, errorCode: "INVALID_ARGUMENTS" })
  })
})
