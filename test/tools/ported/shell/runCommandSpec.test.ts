/**
 * What `makeRunCommand` builds, read off a tool built in the test (not the module's
 * `runCommand`): the spec a model reads (its description, each parameter's, the defaults),
 * what the gates read (confirmation required, the tags, the run timeout: the longest deadline
 * plus the kill's grace period and room for the answer), and the NUL check of `command`.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { KILL_GRACE_MS } from "../../../../src/tools/ported/shell/processGroup.js"
import { makeRunCommand, RUN_COMMAND_MAX_TIMEOUT_SEC } from "../../../../src/tools/ported/shell/runCommand.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

let ws: string
beforeAll(() => {
  ws = makeTempDirSync("run-command-spec-")
})
afterAll(() => Fs.rmSync(ws, { recursive: true, force: true }))

describe("makeRunCommand", () => {
  it.effect("the spec a model reads: what it does, each parameter, the defaults", () =>
    Effect.sync(() => {
      expect(makeRunCommand().spec).toEqual({
        name: "run_command",
        description: "Run a shell command line (/bin/sh -c) in a workspace directory and return " +
          "{ exit_code, signal, timed_out, stdout, stderr }. stdin is empty; stdout and stderr are each cut at 64 KiB. " +
          "When the command ends, times out or is cancelled, every process it started (including background jobs) " +
          "is killed; on Linux so is a process that left the group (setsid) unless it also cleared its environment " +
          "(without /proc, such a process is not found). Only an allow-list of environment variables (PATH, HOME, " +
          "USER, LOGNAME, SHELL, TERM, LANG, LC_*, TZ, TMPDIR, ...) and those the application names are passed on.",
        readOnly: false,
        parameters: {
          type: "object",
          required: ["command"],
          properties: {
            command: {
              type: "string",
              description: "The command line, run by /bin/sh -c (pipes, redirections and && work)",
              minLength: 1
            },
            cwd: { type: "string", description: "Directory to run in, relative to the workspace root", default: "." },
            timeout_sec: {
              type: "number",
              description: "Deadline in seconds (at most 600; larger values are capped); past it every process of the " +
                "command is killed",
              exclusiveMinimum: 0,
              default: 60
            }
          },
          additionalProperties: false
        },
        required: ["command"]
      })
    }))

  it.effect("what the gates read: confirmation required, its tags, a run timeout past the longest deadline and the kill", () =>
    Effect.sync(() => {
      const tool = makeRunCommand()
      expect(tool.requiresConfirmation).toBe(true)
      expect(tool.tags).toEqual(["shell", "ported"])
      expect(tool.timeoutMs).toBe(RUN_COMMAND_MAX_TIMEOUT_SEC * 1000 + KILL_GRACE_MS + 5000)
      expect(tool.timeoutMs).toBe(606_500)
    }))

  it.effect("a command with a NUL character is refused as an invalid argument: nothing is started", () =>
    Effect.gen(function*() {
      const system = yield* ToolSystem
      const r = yield* system.execute("run_command", { command: "echo a\u0000b" }, { confirm: true })
      expect(r.errorCode).toBe("INVALID_ARGUMENTS")
      expect(r.error).toContain("the command must not contain a NUL character")
    }).pipe(
      // built as the test runs
      Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [makeRunCommand()], workspace: Workspace.layerFixed(ws) }))
    ))
})
