/**
 * A workspace whose `.git` file names another repository's git directory: every read-only git
 * tool refuses without showing the other repository's commit, and git_add, git_commit and
 * git_checkout refuse before git writes to it (its HEAD and every file of its git directory
 * unchanged). And the control: a repository wholly inside the workspace still works, with
 * in-workspace alternates and with its git directory named by a `.git` file. In the slow lane:
 * eight git tool calls, or three repositories made and five calls, each call a few git runs,
 * 0.9-1.8 s of CPU a test. The other repositories that reach outside are in
 * `otherRepos.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { commitAll, git, gitTestBase, initRepo, runTool, write } from "./gitFixture.js"
import { expectOutside, gitDirState, otherReposIn, READ_CALLS } from "./otherReposHarness.js"

const base = gitTestBase("git-other-slow-")

const { otherRepo, workspaceIn } = otherReposIn(base)

describe("git tools on a repository that reaches outside the workspace", () => {
  it.effect("a .git file naming another repository: reads refused, add and commit leave it untouched", () =>
    Effect.gen(function*() {
      const { other } = otherRepo("gitfile")
      const ws = workspaceIn("gitfile")
      Fs.writeFileSync(Path.join(ws, ".git"), `gitdir: ${Path.join(other, ".git")}\n`)
      const head = git(other, "rev-parse", "HEAD")
      const before = gitDirState(Path.join(other, ".git"))
      for (const [name, args] of READ_CALLS) {
        const result = yield* runTool(ws, name, args)
        expectOutside(result, /git directory/)
        // the other repository's commit is never shown
        expect(result.error ?? "").not.toMatch(/other's commit/)
      }
      expectOutside(yield* runTool(ws, "git_add", { paths: ["a.txt"] }), /git directory/)
      expectOutside(yield* runTool(ws, "git_commit", { message: "into the other one" }), /git directory/)
      expectOutside(yield* runTool(ws, "git_checkout", { branch: "elsewhere", create: true }), /git directory/)
      expect(git(other, "rev-parse", "HEAD")).toBe(head)
      expect(gitDirState(Path.join(other, ".git"))).toEqual(before)
    }))

  it.effect("a repository wholly inside the workspace still works, in-workspace alternates and a .git file included", () =>
    Effect.gen(function*() {
      const ws = initRepo(workspaceIn("inside"))
      commitAll(ws, "first")
      // a second object store inside the workspace, borrowed relatively
      const store = initRepo(Path.join(ws, "vendor", "store"))
      write(store, "lib.txt", "lib\n")
      commitAll(store, "store's commit")
      const lib = git(store, "rev-parse", "HEAD:lib.txt").trim()
      Fs.writeFileSync(Path.join(ws, ".git", "objects", "info", "alternates"), "../../vendor/store/.git/objects\n")
      const shown = yield* runTool(ws, "git_show", { rev: lib })
      expect(shown.output).toBe("lib\n")
      write(ws, "b.txt", "b\n")
      expect((yield* runTool(ws, "git_add", { paths: ["b.txt"] })).success).toBe(true)
      const commit = yield* runTool(ws, "git_commit", { message: "second" })
      expect(commit.success, commit.error ?? "").toBe(true)
      const log = yield* runTool(ws, "git_log", {})
      expect(String(log.output)).toMatch(/second\n.*first$/)
      // the git directory moved inside the workspace and named by a .git file
      const moved = initRepo(workspaceIn("insidefile"))
      commitAll(moved, "moved")
      Fs.renameSync(Path.join(moved, ".git"), Path.join(moved, "repo.git"))
      Fs.writeFileSync(Path.join(moved, ".git"), "gitdir: repo.git\n")
      expect(String((yield* runTool(moved, "git_log", {})).output)).toMatch(/moved$/)
    }))
})
