/**
 * `effect-tool-system call --audit FILE`: each call appends one JSON line to the file.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { gateOrder } from "../../src/domain/GateDecision.js"
import type { AuditRecord } from "../../src/services/AuditLog.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { cliInProcess as cli } from "./helpers.js"

const ws = makeTempDirSync("ets-audit-")
fs.writeFileSync(path.join(ws, "notes.txt"), "one\ntwo\n")
const logDir = makeTempDirSync("ets-audit-log-")
afterAll(() => {
  fs.rmSync(ws, { recursive: true, force: true })
  fs.rmSync(logDir, { recursive: true, force: true })
})

const recordsOf = (file: string): Array<AuditRecord> =>
  fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l): AuditRecord => JSON.parse(l))

describe("effect-tool-system call --audit", { timeout: 120_000 }, () => {
  it("appends one record per call: success and refusal, the hash and not the arguments, mode 0600", async () => {
    const file = path.join(logDir, "audit.jsonl")
    const read = await cli("call", "read_file", JSON.stringify({ filepath: "notes.txt" }), "--workspace", ws, "--audit", file)
    expect(read.code).toBe(0)
    expect(JSON.parse(read.stdout)).toMatchObject({ success: true })
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)

    const secret = JSON.stringify({ filepath: "secret-name.txt", content: "the secret" })
    const blocked = await cli("call", "write_file", secret, "--workspace", ws, "--yes", "--mode", "explore", "--audit", file)
    expect(blocked.code).toBe(1)

    const [first, second, ...rest] = recordsOf(file)
    expect(rest).toEqual([])
    expect(first).toMatchObject({ tool: "read_file", version: "1.0.0", mode: "default", success: true, errorCode: null })
    expect(first?.argumentsHash).toMatch(/^[0-9a-f]{64}$/)
    expect(first?.gates.map((g) => g.gate)).toEqual([...gateOrder])
    expect(second).toMatchObject({ tool: "write_file", mode: "explore", success: false, errorCode: "MODE_BLOCKED" })
    expect(second?.gates.find((g) => g.gate === "mode")).toMatchObject({ outcome: "fail", code: "MODE_BLOCKED" })
    expect(second?.argumentsHash).not.toBe(first?.argumentsHash)
    expect(fs.readFileSync(file, "utf8")).not.toContain("secret")
  })

  it("records a workspace escape (exit 3) too", async () => {
    const file = path.join(logDir, "escape.jsonl")
    const escape = await cli("call", "read_file", JSON.stringify({ filepath: "../../etc/passwd" }), "--workspace", ws, "--audit", file)
    expect(escape.code).toBe(3)
    expect(recordsOf(file)).toMatchObject([{ tool: "read_file", success: false, errorCode: "PATH_TRAVERSAL" }])
  })

  it("a log file that cannot be opened fails the command (exit 1) and names the file", async () => {
    // a symbolic link is there (to a file the log must not write to)
    const file = path.join(logDir, "planted.jsonl")
    fs.writeFileSync(path.join(logDir, "elsewhere.txt"), "")
    fs.symlinkSync(path.join(logDir, "elsewhere.txt"), file)
    const r = await cli("call", "read_file", JSON.stringify({ filepath: "notes.txt" }), "--workspace", ws, "--audit", file)
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain(`Cannot open the audit log ${file}: it is a symbolic link`)
    expect(fs.readFileSync(path.join(logDir, "elsewhere.txt"), "utf8")).toBe("")
  })
})
