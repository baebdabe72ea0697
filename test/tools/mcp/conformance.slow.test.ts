/**
 * The MCP conformance suite's server scenarios (@modelcontextprotocol/conformance 0.2.0-alpha.12,
 * the active suite) against our HTTP server on 127.0.0.1 (conformanceFixture.ts), for both spec
 * versions: no failure outside conformance.expected-failures.yml, which says why each is expected
 * (and the runner fails on a listed scenario that passes: a stale entry).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { tempDir } from "../../helpers/tempDir.js"
import { serveFixture } from "./conformanceFixture.js"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../..")
const cli = path.join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js")
const baseline = path.join(root, "test/tools/mcp/conformance.expected-failures.yml")

/** Runs the suite's server scenarios against `url`; its exit code and output. */
const conformance = (url: string, specVersion: string, outputDir: string) =>
  Effect.callback<{ readonly code: number; readonly output: string }>((resume) => {
    const child = execFile(
      process.execPath,
      [cli, "server", "--url", url, "--spec-version", specVersion, "--expected-failures", baseline, "-o", outputDir],
      { cwd: root, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 },
      (error, stdout, stderr) => resume(Effect.succeed({ code: error === null ? 0 : Number(error.code ?? 1), output: `${stdout}\n${stderr}` }))
    )
    return Effect.sync(() => child.kill())
  })

describe("MCP conformance (server scenarios)", () => {
  for (const specVersion of ["2025-11-25", "2026-07-28"]) {
    it.live(`spec ${specVersion}: no unexpected failure`, () =>
      Effect.scoped(Effect.gen(function*() {
        const ws = yield* tempDir("mcp-conformance-")
        const { url } = yield* serveFixture(ws)
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:/)
        const { code, output } = yield* conformance(url, specVersion, path.join(ws, "results"))
        const summary = output.slice(output.indexOf("=== SUMMARY ==="))
        expect(summary, output).toMatch(/Total: \d+ passed/)
        expect(code, summary).toBe(0)
        // the tools the registry serves pass
        for (const passing of ["tools-list", "tools-call-simple-text", "tools-call-error", "dns-rebinding-protection"]) {
          expect(summary).toMatch(new RegExp(`✓ ${passing}: \\d+ passed, 0 failed`))
        }
      })), 300_000)
  }
})
