/**
 * The real executable (`src/cli/main.ts` through tsx, as a child process): what only it does.
 * Its exit code reaches the process (0, 1, 2 and 3), its stdout carries only the result, and
 * `--version` after `call` is the tool's range, read from `process.argv`. The commands
 * themselves are tested in process (cli.test.ts and the others).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { cli } from "./helpers.js"

const ws = makeTempDirSync("ets-exe-")
fs.writeFileSync(path.join(ws, "notes.txt"), "one\ntwo\nthree\n")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

describe("the effect-tool-system executable", { timeout: 120_000 }, () => {
  it("exits 0 with the result on stdout, 1 when the call fails", async () => {
    const read = await cli("call", "read_file", JSON.stringify({ filepath: "notes.txt", max_lines: 1 }), "--workspace", ws, "--version", "1.x")
    expect(read.code).toBe(0)
    expect(JSON.parse(read.stdout)).toMatchObject({ success: true, output: "one\n... (2 more lines)", version: "1.0.0" })
    const missing = await cli("call", "read_file", JSON.stringify({ filepath: "gone.txt" }), "--workspace", ws)
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout)).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
  })

  it("exits 2 on a usage error and 3 on an escape, with nothing on stdout", async () => {
    const bad = await cli("call", "read_file", "{not json", "--workspace", ws)
    expect(bad).toMatchObject({ code: 2, stdout: "" })
    expect(bad.stderr).toContain("Invalid JSON")
    const escape = await cli("call", "read_file", JSON.stringify({ filepath: "../../etc/passwd" }), "--workspace", ws)
    expect(escape).toMatchObject({ code: 3, stdout: "" })
    expect(escape.stderr).toContain("PATH_TRAVERSAL")
    expect((await cli("list", "--mode", "nope")).code).toBe(2)
  })
})
