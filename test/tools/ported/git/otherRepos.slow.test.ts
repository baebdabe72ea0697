/**
 * A workspace whose `.git` file names another repository's git directory: every read-only git
 * tool refuses without showing the other repository's commit, and git_add, git_commit and
 * git_checkout refuse before git writes to it (its HEAD and every file of its git directory
 * unchanged). In the slow lane: eight git tool calls, each a few git runs, 1.2-1.8 s of CPU.
 * The other repositories that reach outside are in `otherRepos.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { git, gitTestBase, runTool } from "./gitFixture.js"
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
})
