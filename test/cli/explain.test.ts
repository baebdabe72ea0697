/**
 * `effect-tool-system explain`: the gates' decision without the call, its exit code the one
 * `call` would end with when a gate refuses.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Console, Effect, Layer, Option, Schema } from "effect"
import { explainCall, exitCodeOf, renderExplanation } from "../../src/cli/explain.js"
import { Tool, ToolPolicy, ToolSystem, Workspace } from "../../src/index.js"
import type { CallExplanation } from "../../src/domain/GateDecision.js"
import { gateOrder } from "../../src/domain/GateDecision.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { capturedConsole, cliInProcess as cli } from "./helpers.js"

const ws = makeTempDirSync("ets-explain-")
fs.writeFileSync(path.join(ws, "notes.txt"), "one\ntwo\n")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

const write = JSON.stringify({ filepath: "out.txt", content: "x" })

/** The rows of the table: gate name and outcome, in order. */
const rowsOf = (table: string) =>
  table.split("\n").filter((l) => gateOrder.some((g) => l.startsWith(`${g} `))).map((l) => l.split(/\s{2,}/).slice(0, 2))

describe("effect-tool-system explain", { timeout: 120_000 }, () => {
  it("a call that would run: exit 0, every gate in order, nothing run", async () => {
    const r = await cli("explain", "read_file", JSON.stringify({ filepath: "notes.txt" }), "--workspace", ws)
    expect(r.code).toBe(0)
    expect(r.stdout.split("\n")[0]).toBe("read_file 1.0.0, mode default: would run")
    expect(rowsOf(r.stdout).map(([gate]) => gate)).toEqual([...gateOrder])
    expect(rowsOf(r.stdout).every(([, outcome]) => outcome === "pass" || outcome === "skip")).toBe(true)
  })

  it("the confirmation gate refuses without --yes (exit 1); with --yes it would run, and the tool does not", async () => {
    const refused = await cli("explain", "write_file", write, "--workspace", ws)
    expect(refused.code).toBe(1)
    expect(refused.stdout).toContain("refused by the confirmation gate (CONFIRMATION_REQUIRED)")
    expect(rowsOf(refused.stdout)).toContainEqual(["confirmation", "FAIL"])
    expect(rowsOf(refused.stdout)).toContainEqual(["rateLimit", "not reached"])

    const confirmed = await cli("explain", "write_file", write, "--workspace", ws, "--yes")
    expect(confirmed.code).toBe(0)
    expect(confirmed.stdout).toContain("would run")
    expect(fs.existsSync(path.join(ws, "out.txt"))).toBe(false)
  })

  it("--json prints the CallExplanation; --mode explore blocks a write", async () => {
    const r = await cli("explain", "write_file", write, "--workspace", ws, "--yes", "--mode", "explore", "--json")
    expect(r.code).toBe(1)
    const explanation: CallExplanation = JSON.parse(r.stdout)
    expect(explanation).toMatchObject({
      tool: "write_file",
      version: "1.0.0",
      mode: "explore",
      wouldRun: false,
      errorCode: "MODE_BLOCKED"
    })
    expect(explanation.gates.map((g) => g.gate)).toEqual([...gateOrder])
    expect(explanation.gates.find((g) => g.gate === "mode")).toMatchObject({ outcome: "fail", code: "MODE_BLOCKED" })
  })

  it("agrees with call on the exit code and the error code", async () => {
    const cases: Array<Array<string>> = [
      ["write_file", write, "--workspace", ws],
      ["write_file", write, "--workspace", ws, "--yes", "--mode", "plan"],
      ["read_file", JSON.stringify({ filepath: "notes.txt", max_lines: "x" }), "--workspace", ws],
      ["read_file", JSON.stringify({ filepath: "notes.txt" }), "--workspace", ws, "--version", "^2"]
    ]
    for (const args of cases) {
      const [explained, called] = await Promise.all([cli("explain", ...args, "--json"), cli("call", ...args)])
      expect({ args, code: explained.code }).toEqual({ args, code: called.code })
      expect(JSON.parse(explained.stdout).errorCode).toBe(JSON.parse(called.stdout).errorCode)
    }
    expect(fs.existsSync(path.join(ws, "out.txt"))).toBe(false)
  })

  it("a workspace escape exits 3 (as call does); bad JSON is a usage error (2)", async () => {
    const escape = await cli("explain", "read_file", JSON.stringify({ filepath: "../../etc/passwd" }), "--workspace", ws)
    expect(escape.code).toBe(3)
    expect(escape.stdout).toContain("refused by the paths gate (PATH_TRAVERSAL)")

    const bad = await cli("explain", "read_file", "{not json", "--workspace", ws)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("Invalid JSON")
    expect(bad.stdout).toBe("")
    expect((await cli("explain", "read_file", "[1]")).code).toBe(2)
  })
})

describe("the explanation table", () => {
  const explanation: CallExplanation = {
    tool: "nope",
    version: null,
    mode: "default",
    wouldRun: false,
    errorCode: "TOOL_NOT_FOUND",
    message: "Tool \"nope\" not found",
    gates: [
      { gate: "lookup", outcome: "fail", reason: "no such tool", code: "TOOL_NOT_FOUND" },
      ...gateOrder.slice(1).map((gate) => ({ gate, outcome: "not_reached" as const, reason: "an earlier gate refused" }))
    ]
  }

  it("names the refusing gate and its code, and the message when the reason does not say it", () => {
    const lines = renderExplanation(explanation).split("\n")
    expect(lines[0]).toBe("nope, mode default: refused by the lookup gate (TOOL_NOT_FOUND)")
    expect(lines[3]).toMatch(/^lookup\s+FAIL\s+TOOL_NOT_FOUND: no such tool$/)
    expect(lines.at(-1)).toBe("Tool \"nope\" not found")
    expect(exitCodeOf(explanation)).toBe(1)
  })

  it("is laid out exactly: the verdict, a blank line, the header, padded rows, the message apart", () => {
    expect(renderExplanation(explanation).split("\n").slice(0, 5)).toEqual([
      "nope, mode default: refused by the lookup gate (TOOL_NOT_FOUND)",
      "",
      // the widest gate name (confirmation, 12) and two spaces
      `GATE${" ".repeat(10)}OUTCOME${" ".repeat(6)}REASON`,
      `lookup${" ".repeat(8)}FAIL${" ".repeat(9)}TOOL_NOT_FOUND: no such tool`,
      `arguments${" ".repeat(5)}not reached  an earlier gate refused`
    ])
    expect(renderExplanation(explanation).split("\n").slice(-2)).toEqual(["", "Tool \"nope\" not found"])
    // a gate without a code shows its reason alone; no gate refusing and no code: "no code"
    const odd: CallExplanation = {
      ...explanation,
      errorCode: null,
      message: null,
      gates: [{ gate: "lookup", outcome: "pass", reason: "found it" }]
    }
    expect(renderExplanation(odd)).toBe(["nope, mode default: refused (no code)", "", "GATE    OUTCOME      REASON", "lookup  pass         found it"].join("\n"))
    // a message with no refusing gate is shown after the table
    expect(renderExplanation({ ...odd, message: "why" }).split("\n").slice(-2)).toEqual(["", "why"])
  })

  it("does not repeat a code the reason starts with; exit codes 0, 1 and 3", () => {
    const escape: CallExplanation = {
      ...explanation,
      tool: "read_file",
      version: "1.0.0",
      errorCode: "PATH_TRAVERSAL",
      message: "PATH_TRAVERSAL: out",
      gates: [{ gate: "paths", outcome: "fail", reason: "PATH_TRAVERSAL: out", code: "PATH_TRAVERSAL" }]
    }
    const text = renderExplanation(escape)
    expect(text).toMatch(/\npaths\s+FAIL\s+PATH_TRAVERSAL: out$/)
    expect(text).not.toContain("PATH_TRAVERSAL: PATH_TRAVERSAL")
    expect(text.split("\n").at(-1)).toMatch(/^paths/)
    expect(exitCodeOf(escape)).toBe(3)
    expect(exitCodeOf({ ...explanation, wouldRun: true, errorCode: null, message: null })).toBe(0)
  })
})

describe("explainCall", () => {
  it.effect("prints the cause and exits 1 when the explanation itself dies (here a hand-made policy that dies)", () =>
    Effect.gen(function*() {
      const probe = Tool.make("probe", {
        description: "A tool for the test",
        parameters: Schema.Struct({}),
        readOnly: true,
        handler: () => Effect.succeed("ran")
      })
      const dying = Layer.succeed(ToolPolicy, { evaluate: () => Effect.die(new Error("policy exploded")) })
      const captured = capturedConsole()
      const code = yield* explainCall({
        name: "probe",
        args: "{}",
        mode: Option.none(),
        yes: false,
        version: Option.none(),
        json: false
      }).pipe(
        Effect.provideService(Console.Console, captured.console),
        Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [probe], policy: dying, workspace: Workspace.layerFixed(ws) }))
      )
      expect(code).toBe(1)
      // PassThrough streams hand their data on in a later tick
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      expect(captured.stderr()).toContain("policy exploded")
      expect(captured.stdout()).toBe("")
    }))
})

