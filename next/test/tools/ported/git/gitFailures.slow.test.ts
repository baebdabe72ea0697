/**
 * The git tools' failures where every tool runs on a broken repository: one git refuses to use
 * (a repository format from the future) and one whose work tree is elsewhere are refused with
 * git's reason; on a corrupt index each tool that reads it fails with git's message, naming its
 * own git command, and the others still work. In the slow lane: each calls the git tools nine
 * times, every call a few git runs, 0.8-1.3 s of CPU a test. The other failures are in
 * `gitFailures.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ALL_TOOLS, expectFailure, twoCommitRepos } from "./gitFailuresHarness.js"
import { git, gitTestBase, runTool } from "./gitFixture.js"

const base = gitTestBase("git-failures-slow-")

const repo = twoCommitRepos(base)

const INDEX_BROKEN = "fatal: .git/index: index file smaller than expected"

describe("the git tools' failures", () => {
  it.live("a repository git refuses to use, and one whose work tree is elsewhere, are refused with git's reason", () =>
    Effect.gen(function*() {
      const future = repo()
      git(future, "config", "core.repositoryformatversion", "99")
      for (const [name, args] of ALL_TOOLS) {
        expectFailure(
          yield* runTool(future, name, args),
          "git cannot use this repository: fatal: Expected git repo version <= 1, found 99",
          name
        )
      }
      const moved = repo()
      const elsewhere = base.at("elsewhere")
      Fs.mkdirSync(elsewhere)
      git(moved, "config", "core.worktree", elsewhere)
      expectFailure(
        yield* runTool(moved, "git_log", {}),
        `The repository's work tree is …/elsewhere, not the workspace root (its core.worktree points elsewhere); ` +
          "the git tools work only on the workspace"
      )
    }))

  it.live("a corrupt index: each tool that reads it fails with git's message, naming its own git command", () =>
    Effect.gen(function*() {
      const dir = repo()
      Fs.writeFileSync(Path.join(dir, ".git", "index"), "garbage\n")
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
        ["git_status", {}, "git status failed"],
        ["git_diff", {}, "git diff failed"],
        ["git_diff", { staged: true }, "git diff failed"],
        ["git_add", { paths: ["a.txt"] }, "git add failed"],
        ["git_commit", { message: "m" }, "git commit failed"],
        ["git_checkout", { branch: "old" }, "git switch failed"]
      ]
      for (const [name, args, what] of cases) {
        expectFailure(yield* runTool(dir, name, args), `${what}: ${INDEX_BROKEN}`, `${name} ${JSON.stringify(args)}`)
      }
      // the tools that do not read the index still work
      expect(String((yield* runTool(dir, "git_log", {})).output)).toMatch(/: second\n[0-9a-f]+ .*: first$/)
      expectFailure(
        yield* runTool(dir, "git_show", { rev: "nope" }),
        "git show nope failed: fatal: bad revision 'nope'"
      )
    }))
})
