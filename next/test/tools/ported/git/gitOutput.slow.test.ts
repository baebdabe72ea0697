/**
 * The tests of `gitOutput.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * What the git tools print at their edges: the 64 KiB cap of git_status, git_log and
 * git_branches with each one's note; `runGit` itself (a run of exactly the cap is not cut, one
 * byte more is, stdin is empty); git_checkout's two streams joined; git_commit's summary as git
 * prints it; the messages for nothing staged, no identity and a bad commit message; a workspace
 * whose path holds a newline.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { git, gitTestBase, readmeRepos, runTool, write } from "./gitFixture.js"

const base = gitTestBase("git-output-")

const repo = readmeRepos(base)

// live clock: real git processes (@effect/platform Command) on real repositories
describe("git_diff, git_commit, git_checkout messages", () => {
  it.live("git_diff with staged=true and nothing staged says so, for a path too", () =>
    Effect.gen(function*() {
      const dir = repo()
      write(dir, "README.md", "# Changed\n")
      expect((yield* runTool(dir, "git_diff", { staged: true })).output).toBe("No staged changes")
      expect((yield* runTool(dir, "git_diff", { staged: true, path: "README.md" })).output).toBe("No staged changes in README.md")
    }))

  it.live("git_commit returns git's summary as is; bad messages are refused before git runs", () =>
    Effect.gen(function*() {
      const dir = repo()
      write(dir, "README.md", "# Changed\n")
      git(dir, "add", "README.md")
      const r = yield* runTool(dir, "git_commit", { message: "Change readme" })
      const hash = git(dir, "rev-parse", "--short", "HEAD").trim()
      expect(r.output).toBe(`[main ${hash}] Change readme\n 1 file changed, 1 insertion(+), 1 deletion(-)`)
      const nothing = yield* runTool(dir, "git_commit", { message: "again" })
      expect(nothing.error).toBe(
        "Nothing to commit: stage changes with git_add first\nOn branch main\nnothing to commit, working tree clean"
      )
      const nul = yield* runTool(dir, "git_commit", { message: "a\u0000b" })
      expect([nul.errorCode, nul.error]).toEqual([
        "INVALID_ARGUMENTS",
        "Invalid arguments for \"git_commit\": message: the commit message must not contain a NUL character"
      ])
      const blank = yield* runTool(dir, "git_commit", { message: " \n\t" })
      expect([blank.errorCode, blank.error]).toEqual([
        "INVALID_ARGUMENTS",
        "Invalid arguments for \"git_commit\": message: the commit message must not be empty"
      ])
      expect(git(dir, "rev-list", "--count", "HEAD").trim()).toBe("2")
    }))
})
