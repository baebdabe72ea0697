/**
 * What `gitFailures.test.ts` and `gitFailures.slow.test.ts` share: the repository most of their
 * tests break, every git tool with arguments it accepts, and the check of a tool's own failure.
 */
import { expect } from "@effect/vitest"
import type { ToolExecutionResult } from "../../../../src/index.js"
import { commitAll, git, initRepo, write } from "./gitFixture.js"

/**
 * Makes repositories under `base` (a test file's `gitTestBase`), a new one at each call: two
 * commits (a.txt, then b.txt) and a branch `old` at the first.
 */
export const twoCommitRepos = (base: { readonly at: (name: string) => string }) => {
  let count = 0
  return (): string => {
    const dir = initRepo(base.at(`repo-${++count}`))
    write(dir, "a.txt", "a\n")
    commitAll(dir, "first")
    git(dir, "branch", "old")
    write(dir, "b.txt", "b\n")
    write(dir, "a.txt", "a2\n")
    commitAll(dir, "second")
    return dir
  }
}

/** The result is the tool's own failure with exactly this message. */
export const expectFailure = (r: ToolExecutionResult, message: string, label = r.tool): void => {
  expect({ label, success: r.success, errorCode: r.errorCode, error: r.error }).toEqual({
    label,
    success: false,
    errorCode: "TOOL_ERROR",
    error: message
  })
  expect(r.success ? undefined : r.details, label).toBeUndefined()
}

export const ALL_TOOLS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["git_status", {}],
  ["git_diff", {}],
  ["git_log", {}],
  ["git_show", {}],
  ["git_branches", {}],
  ["git_add", { paths: ["."] }],
  ["git_commit", { message: "m" }],
  ["git_checkout", { branch: "main" }]
]
