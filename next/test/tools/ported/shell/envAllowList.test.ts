/**
 * `run_command`'s environment is an allow-list: connection strings, personal access tokens,
 * webhook URLs, DSNs and cookies (names no deny-list catches) stay out; a name the application
 * passes (`makeRunCommand({ passEnv })` or `RUN_COMMAND_PASS_ENV`) gets in.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { shellTools } from "../../../../src/tools/ported/shell/index.js"
import * as Shell from "../../../../src/tools/ported/shell/index.js"
import { withEnv } from "../../../helpers/env.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

let ws: string
beforeAll(() => {
  ws = makeTempDirSync("env-allow-")
})
afterAll(() => Fs.rmSync(ws, { recursive: true, force: true }))

const LEAKY = {
  DATABASE_URL: "postgres://u:pw@db/x",
  GITHUB_PAT: "ghp_leak",
  SLACK_WEBHOOK_URL: "https://hooks.slack.invalid/T/B/x",
  SENTRY_DSN: "https://k@sentry.invalid/1",
  COOKIE: "session=leak",
  REDIS_URL: "redis://:pw@cache:6379"
}

/** The `env` lines a command sees, run by `tools` (the shell tools by default). */
const envLines = (tools: ReadonlyArray<(typeof shellTools)[number]> = shellTools) =>
  Effect.gen(function*() {
    const system = yield* ToolSystem
    const result = yield* system.execute("run_command", { command: "env" }, { confirm: true })
    expect(result.error).toBeNull()
    return (result.output as { stdout: string }).stdout.split("\n")
  }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, tools, workspace: Workspace.layerFixed(ws) })))

const names = (lines: ReadonlyArray<string>) => lines.map((line) => line.split("=")[0])

// live clock: real /bin/sh processes
describe("run_command's environment", () => {
  it.live("passes none of DATABASE_URL, *_PAT, webhook URLs, DSNs, COOKIE, REDIS_URL; keeps PATH and HOME", () =>
    Effect.gen(function*() {
      yield* withEnv({ ...LEAKY, HOME: "/home/someone", SOME_APP_SETTING: "x" })
      const lines = yield* envLines()
      for (const name of [...Object.keys(LEAKY), "SOME_APP_SETTING"]) expect(names(lines), name).not.toContain(name)
      expect(lines).toContain("HOME=/home/someone")
      expect(names(lines)).toContain("PATH")
    }).pipe(Effect.scoped))

  it.live("passes a name the application gives, through the option or RUN_COMMAND_PASS_ENV", () =>
    Effect.gen(function*() {
      yield* withEnv({ ...LEAKY, APP_MODE: "staging", NODE_ENV: "test", RUN_COMMAND_PASS_ENV: " NODE_ENV , " })
      const lines = yield* envLines([Shell.makeRunCommand({ passEnv: ["APP_MODE", "REDIS_URL"] })])
      expect(lines).toContain("APP_MODE=staging")
      expect(lines).toContain("REDIS_URL=redis://:pw@cache:6379")
      expect(lines).toContain("NODE_ENV=test")
      expect(names(lines)).not.toContain("DATABASE_URL")
      expect(names(lines)).not.toContain("RUN_COMMAND_PASS_ENV")
    }).pipe(Effect.scoped))
})
