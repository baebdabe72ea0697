/**
 * `npm run demo` as a person runs it: a child process (`npx tsx examples/demo.ts`), no network,
 * no API key. It exits 0 and prints every step, each checked by the demo itself.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "../..")

const run = (file: string, env: NodeJS.ProcessEnv = {}) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    execFile("npx", ["tsx", file], { cwd: root, timeout: 90_000, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
  })

describe("examples/demo.ts", () => {
  it("runs every step of the scripted agent and exits 0", async () => {
    const { code, stderr, stdout } = await run("examples/demo.ts")
    // npx may print npm notices on stderr; nothing else may be there
    expect(stderr).not.toMatch(/Error|\n\s+at /)
    expect(code).toBe(0)
    const steps = [
      "read in explore mode",
      "write refused in explore mode",
      "plan written in plan mode",
      "write approved by the user",
      "rate limit",
      "timeout",
      "workspace escape"
    ]
    steps.forEach((title, i) => expect(stdout).toContain(`[${i + 1}/7] ${title} ✓`))
    expect(stdout).toMatch(/read_file \{"filepath":"README\.md"\} → ok: # Demo project/)
    expect(stdout).toMatch(/write_file .*"notes\.md".* → MODE_BLOCKED/)
    expect(stdout).toMatch(/"plans\/step-1\.md".* → ok: Wrote \d+ bytes to plans\/step-1\.md/)
    expect(stdout).toContain("the ConfirmationHandler asked the user to confirm")
    expect(stdout).toMatch(/→ RATE_LIMITED: .*retry after \d+ ms/)
    expect(stdout).toMatch(/slow_report \{\} → TIMEOUT/)
    expect(stdout).toMatch(/PathTraversalError defect: \.\.\/\.\.\/etc\/passwd/)
    expect(stdout).toContain("all 7 steps behaved as expected")
    expect(stdout).not.toContain("NOT AS EXPECTED")
    // short: a screenful
    expect(stdout.trim().split("\n").length).toBeLessThan(40)
  }, 120_000)
})
