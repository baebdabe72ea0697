/**
 * How the git tools fail, message by message: outside a repository (every tool), a repository
 * git cannot use, a configuration git cannot read, git missing or not runnable, and a git run
 * that fails after the repository was opened (a corrupt index, a missing commit object, a bad
 * `branch.sort`). Each failure is the tool's own: `TOOL_ERROR` with the exact message and no
 * `details` (a failure named for another tool would be re-wrapped and carry them). A repository
 * git refuses to use (or whose work tree is elsewhere) and a corrupt index, which each run
 * every tool, are in `gitFailures.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { expectFailure, twoCommitRepos } from "./gitFailuresHarness.js"
import { git, gitTestBase, runTool, withEnv } from "./gitFixture.js"

const base = gitTestBase("git-failures-")

const repo = twoCommitRepos(base)

// live clock: real git processes (effect/process ChildProcess) on real repositories
describe("the git tools' failures", () => {

  it.live("git_log with a missing commit object fails with git's message, not as an empty history", () =>
    Effect.gen(function*() {
      const dir = repo()
      const head = git(dir, "rev-parse", "HEAD").trim()
      const parent = git(dir, "rev-parse", "HEAD~1").trim()
      Fs.rmSync(Path.join(dir, ".git", "objects", parent.slice(0, 2), parent.slice(2)), { force: true })
      expectFailure(
        yield* runTool(dir, "git_log", {}),
        `git log failed: error: Could not read ${parent}\nfatal: Failed to traverse parents of commit ${head}`
      )
    }))

  it.live("git_branches fails with git's message when git branch does", () =>
    Effect.gen(function*() {
      const dir = repo()
      git(dir, "config", "branch.sort", "nope")
      expectFailure(yield* runTool(dir, "git_branches", {}), "git branch failed: fatal: unknown field name: nope")
    }))

  it.live("git missing from PATH, a git that cannot be run, a git that cannot read the configuration", () =>
    Effect.gen(function*() {
      const dir = repo()
      const realGit = ChildProcess.execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()
      const empty = base.at("empty-bin")
      Fs.mkdirSync(empty)
      const notRunnable = base.at("bad-bin")
      Fs.mkdirSync(notRunnable)
      Fs.writeFileSync(Path.join(notRunnable, "git"), "not a program\n", { mode: 0o644 })
      // a git that fails the configuration listing only, as a git that cannot read a file would
      const failingConfig = base.at("config-bin")
      Fs.mkdirSync(failingConfig)
      Fs.writeFileSync(
        Path.join(failingConfig, "git"),
        `#!/bin/sh\nfor a; do [ "$a" = --show-scope ] && { echo 'fatal: cannot read the configuration' >&2; exit 3; }; done\n` +
          `exec '${realGit}' "$@"\n`,
        { mode: 0o755 }
      )
      yield* Effect.scoped(Effect.gen(function*() {
        yield* withEnv({ PATH: empty })
        expectFailure(yield* runTool(dir, "git_status", {}), "git is not available: no `git` executable on PATH")
      }))
      yield* Effect.scoped(Effect.gen(function*() {
        yield* withEnv({ PATH: notRunnable })
        const r = yield* runTool(dir, "git_add", { paths: ["a.txt"] })
        expect(r.errorCode).toBe("TOOL_ERROR")
        expect(r.error).toMatch(/^could not run git: \S/)
        expect(r.error).not.toContain("not available")
      }))
      yield* Effect.scoped(Effect.gen(function*() {
        yield* withEnv({ PATH: `${failingConfig}:${process.env.PATH ?? ""}` })
        expectFailure(
          yield* runTool(dir, "git_log", {}),
          "git cannot read this repository's configuration: fatal: cannot read the configuration"
        )
      }))
    }))
})
