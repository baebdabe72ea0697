/**
 * What `otherRepos.test.ts` and `otherRepos.slow.test.ts` share: an outside repository and a
 * workspace beside it, the state of a git directory, the refusal of a tool whose repository
 * reaches outside, and the read-only git tools.
 */
import { expect } from "@effect/vitest"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { commitAll, git, initRepo, write } from "./gitFixture.js"

/** Makers of repositories and workspaces under `base` (a test file's `gitTestBase`). */
export const otherReposIn = (base: { readonly at: (name: string) => string }) => ({
  /** An outside repository `<name>/other` with one commit holding `secret.txt`; returns it and that blob's hash. */
  otherRepo: (name: string): { readonly other: string; readonly blob: string } => {
    const other = initRepo(Path.join(base.at(name), "other"))
    write(other, "secret.txt", "the other repository's secret\n")
    commitAll(other, "other's commit")
    return { other, blob: git(other, "rev-parse", "HEAD:secret.txt").trim() }
  },
  /** A workspace `<name>/ws` (a plain directory) with a file to stage. */
  workspaceIn: (name: string): string => {
    const ws = Path.join(base.at(name), "ws")
    write(ws, "a.txt", "mine\n")
    return ws
  }
})

/** Everything below a repository's git directory, as path and content digest: equal means untouched. */
export const gitDirState = (gitDir: string): ReadonlyArray<string> =>
  Fs.readdirSync(gitDir, { recursive: true, encoding: "utf8" }).sort().map((rel) => {
    const file = Path.join(gitDir, rel)
    const stats = Fs.lstatSync(file)
    return stats.isFile()
      ? `${rel} ${Crypto.createHash("sha256").update(Fs.readFileSync(file)).digest("hex")} ${stats.mtimeMs}`
      : rel
  })

/** A refusal of a git tool that says the repository reaches outside the workspace. */
export const expectOutside = (result: { readonly success: boolean; readonly errorCode: string | null; readonly error: string | null }, what: RegExp) => {
  expect(result.success).toBe(false)
  expect(result.errorCode).toBe("TOOL_ERROR")
  expect(result.error ?? "").toMatch(/outside the workspace/)
  expect(result.error ?? "").toMatch(what)
}

export const READ_CALLS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["git_log", {}],
  ["git_show", {}],
  ["git_status", {}],
  ["git_diff", {}],
  ["git_branches", {}]
]
