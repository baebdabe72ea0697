/**
 * The MCP conformance suite's CLIENT scenarios (@modelcontextprotocol/conformance 0.2.0-alpha.12)
 * against our bridge (`conformanceClient.ts`, run with `node --import tsx` once per scenario):
 * `--suite auth` (discovery, client ID metadata documents, dynamic and pre-registration, PKCE,
 * scopes and step-up, token endpoint authentication) and `--suite all` (the auth scenarios of
 * 2026-07-28 too: `iss` checks, resource mismatch, authorization server migration; and the
 * protocol scenarios), for both spec versions, with no failure outside
 * conformanceClient.expected-failures.yml (which says why each is expected; the runner also fails
 * on a listed scenario that passes).
 *
 * The runner's scenario servers listen on every interface: it is run inside `unshare -n` (a
 * network namespace of its own with only loopback), so nothing is reachable beyond it. Skipped,
 * saying why, where `unshare -n` is not allowed.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile, spawnSync } from "node:child_process"
import * as path from "node:path"
import { tempDir } from "../../helpers/tempDir.js"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../..")
const cli = path.join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js")
const baseline = path.join(root, "test/tools/mcp/conformanceClient.expected-failures.yml")
const command = `${process.execPath} --import tsx test/tools/mcp/conformanceClient.ts`

const isolated = spawnSync("unshare", ["-n", "true"], { stdio: "ignore" })
const noUnshare = isolated.error !== undefined || isolated.status !== 0
  ? `unshare -n is not available here (${isolated.error?.message ?? `exit ${isolated.status}`}): the scenario servers listen on all interfaces`
  : undefined

/** Runs the client suite `suite` in a network namespace of its own; its exit code and output. */
const conformance = (suite: string, specVersion: string, outputDir: string) =>
  Effect.callback<{ readonly code: number; readonly output: string }>((resume) => {
    const script = `ip link set lo up && exec "$0" "$@"`
    const child = execFile(
      "unshare",
      [
        "-n",
        "sh",
        "-c",
        script,
        process.execPath,
        cli,
        "client",
        "--command",
        command,
        "--suite",
        suite,
        "--spec-version",
        specVersion,
        "--expected-failures",
        baseline,
        "-o",
        outputDir
      ],
      { cwd: root, maxBuffer: 64 * 1024 * 1024, timeout: 400_000, env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ""}` } },
      (error, stdout, stderr) => resume(Effect.succeed({ code: error === null ? 0 : Number(error.code ?? 1), output: `${stdout}\n${stderr}` }))
    )
    return Effect.sync(() => child.kill())
  })

const authScenarios = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration"
]

const auth2026 = [
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/authorization-server-migration",
  "auth/iss-supported",
  "auth/iss-not-advertised",
  "auth/iss-supported-missing",
  "auth/iss-wrong-issuer",
  "auth/iss-unexpected",
  "auth/iss-normalized",
  "auth/metadata-issuer-mismatch"
]

describe("MCP conformance (client scenarios, our bridge)", () => {
  for (const suite of ["auth", "all"]) {
    for (const specVersion of ["2025-11-25", "2026-07-28"]) {
      it.live.skipIf(noUnshare !== undefined)(`--suite ${suite}, spec ${specVersion}: no unexpected failure${noUnshare === undefined ? "" : ` (skipped: ${noUnshare})`}`, () =>
        Effect.scoped(Effect.gen(function*() {
          const ws = yield* tempDir("mcp-conformance-client-")
          const { code, output } = yield* conformance(suite, specVersion, path.join(ws, "results"))
          const summary = output.slice(output.indexOf("=== SUITE SUMMARY ==="))
          expect(summary, output.slice(-4000)).toMatch(/Total: \d+ passed/)
          expect(code, summary).toBe(0)
          const passing = [...authScenarios, ...(suite === "all" && specVersion === "2026-07-28" ? auth2026 : [])]
          for (const scenario of passing) expect(summary).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`))
          if (suite === "all") {
            for (const scenario of ["tools_call", "json-schema-2020-12-preservation"]) {
              expect(summary).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`))
            }
            // SEP-2243 (paramHeaders.ts): 2026-07-28 only
            if (specVersion === "2026-07-28") {
              for (const scenario of ["http-custom-headers", "http-invalid-tool-headers"]) {
                expect(summary).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`))
              }
            }
          }
        })), 420_000)
    }
  }
})
