/**
 * The tests of `otherRepos.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * A workspace whose repository reaches another one: a worktree-style git directory whose
 * `commondir` points out, alternates (absolute, relative, chained, from the host's
 * environment), an objects directory that is a symbolic link out, a workspace below another
 * repository. Every git tool refuses, before git reads or writes the other repository. A `.git`
 * file naming another git directory, which runs every tool, and a repository wholly inside the
 * workspace that still works (three repositories made) are in `otherRepos.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { commitAll, git, gitTestBase, initRepo, runTool, write } from "./gitFixture.js"
import { expectOutside, gitDirState, otherReposIn, READ_CALLS } from "./otherReposHarness.js"

const base = gitTestBase("git-other-")

const { otherRepo, workspaceIn } = otherReposIn(base)

describe("git tools on a repository that reaches outside the workspace", () => {
  it.effect("a worktree-style git directory inside the workspace whose commondir points out: refused", () =>
    Effect.gen(function*() {
      const { other } = otherRepo("commondir")
      const ws = workspaceIn("commondir")
      // what `git worktree add` makes, with the private git directory moved into the workspace
      const gd = Path.join(ws, "gd")
      Fs.mkdirSync(gd)
      Fs.writeFileSync(Path.join(gd, "HEAD"), `${git(other, "rev-parse", "HEAD")}`)
      Fs.writeFileSync(Path.join(gd, "commondir"), `${Path.join(other, ".git")}\n`)
      Fs.writeFileSync(Path.join(gd, "gitdir"), `${Path.join(ws, ".git")}\n`)
      Fs.writeFileSync(Path.join(ws, ".git"), `gitdir: ${gd}\n`)
      const before = gitDirState(Path.join(other, ".git"))
      expectOutside(yield* runTool(ws, "git_log", {}), /common directory/)
      expectOutside(yield* runTool(ws, "git_add", { paths: ["a.txt"] }), /common directory/)
      expectOutside(yield* runTool(ws, "git_commit", { message: "into the other one" }), /common directory/)
      expect(gitDirState(Path.join(other, ".git"))).toEqual(before)
    }))

  it.effect("alternates naming an outside object directory, absolutely or relatively: refused", () =>
    Effect.gen(function*() {
      const { blob, other } = otherRepo("alternates")
      const ws = initRepo(workspaceIn("alternates"))
      commitAll(ws, "mine")
      const alternates = Path.join(ws, ".git", "objects", "info", "alternates")
      Fs.writeFileSync(alternates, `# borrowed objects\n${Path.join(other, ".git", "objects")}\n`)
      expectOutside(yield* runTool(ws, "git_show", { rev: blob }), /alternates/)
      expectOutside(yield* runTool(ws, "git_log", {}), /alternates/)
      // relative to the objects directory, climbing out
      const relative = Path.relative(Path.join(ws, ".git", "objects"), Path.join(other, ".git", "objects"))
      expect(relative.startsWith("..")).toBe(true)
      Fs.writeFileSync(alternates, `${relative}\n`)
      expectOutside(yield* runTool(ws, "git_show", { rev: blob }), /alternates/)
      // quoted as git writes a name with special characters
      Fs.writeFileSync(alternates, `"${relative}"\n`)
      expectOutside(yield* runTool(ws, "git_status", {}), /alternates/)
    }))

  it.effect("a workspace below another repository: no repository is used", () =>
    Effect.gen(function*() {
      const { other } = otherRepo("below")
      const ws = Path.join(other, "nested", "ws")
      write(ws, "a.txt", "mine\n")
      const before = gitDirState(Path.join(other, ".git"))
      for (const [name, args] of [...READ_CALLS, ["git_add", { paths: ["a.txt"] }] as const]) {
        const result = yield* runTool(ws, name, args)
        expect(result.success).toBe(false)
        expect(result.error ?? "").toMatch(/not a git repository/)
      }
      expect(gitDirState(Path.join(other, ".git"))).toEqual(before)
    }))
})
