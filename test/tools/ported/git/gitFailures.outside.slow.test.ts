/**
 * The tests of `gitFailures.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
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
import * as Fs from "node:fs"
import * as Path from "node:path"
import { GIT_MAX_OUTPUT_BYTES } from "../../../../src/tools/ported/git/gitCommand.js"
import { ALL_TOOLS, expectFailure, twoCommitRepos } from "./gitFailuresHarness.js"
import { git, gitTestBase, runTool, toolsIn } from "./gitFixture.js"

const base = gitTestBase("git-failures-")

const repo = twoCommitRepos(base)

const NOT_A_REPOSITORY = "The workspace is not a git repository: the git tools work on a repository whose top level is " +
  "the workspace root (one above it is not used). `git init` makes one."

// live clock: real git processes (@effect/platform Command) on real repositories
describe("the git tools' failures", () => {
  // its calls share one tool system (toolsIn): one of its own per call costs a third more CPU
  it.live("outside a repository every tool says so in the same words, as its own failure", () =>
    Effect.gen(function*() {
      const plain = base.at("plain")
      Fs.mkdirSync(plain)
      const run = yield* toolsIn(plain)
      for (const [name, args] of ALL_TOOLS) expectFailure(yield* run(name, args), NOT_A_REPOSITORY, name)
    }))

  it.live("a filter configuration past the output cap is refused; a large configuration without filters is not", () =>
    Effect.gen(function*() {
      const big = repo()
      // one driver, but its listing alone is past the 64 KiB a git run shows
      git(big, "config", "filter.huge.clean", `cat ${"x".repeat(70_000)}`)
      const refused = yield* runTool(big, "git_status", {})
      expect({ errorCode: refused.errorCode, output: refused.output }).toEqual({ errorCode: "TOOL_ERROR", output: null })
      // the check of the cut comes first: the listing (the repository's own text) is not echoed
      expect(refused.error).toBe(
        `the repository's filter driver configuration is too large to check (over ${GIT_MAX_OUTPUT_BYTES} bytes); ` +
          "the git tools do not use such a repository"
      )
      const aliases = repo()
      const entries = Array.from({ length: 1000 }, (_, i) => `\ta${i} = log --format=${"y".repeat(80)}\n`).join("")
      Fs.appendFileSync(Path.join(aliases, ".git", "config"), `[alias]\n${entries}`)
      expect((yield* runTool(aliases, "git_status", {})).output).toBe("## main\n(nothing to commit, working tree clean)")
    }))
})
