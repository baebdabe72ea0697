/**
 * A workspace whose repository reaches another one: a worktree-style git directory whose
 * `commondir` points out, alternates (absolute, relative, chained, from the host's
 * environment), an objects directory that is a symbolic link out, a workspace below another
 * repository. Every git tool refuses, before git reads or writes the other repository; a
 * repository wholly inside the workspace (in-workspace alternates included) still works. A
 * `.git` file naming another git directory, which runs every tool, is in
 * `otherRepos.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { commitAll, git, gitTestBase, initRepo, runTool, toolsIn, withEnv, write } from "./gitFixture.js"
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

  it.effect("alternates chained through an object directory inside the workspace: refused", () =>
    Effect.gen(function*() {
      const { blob, other } = otherRepo("chained")
      const ws = initRepo(workspaceIn("chained"))
      commitAll(ws, "mine")
      const store = Path.join(ws, "store", "objects")
      Fs.mkdirSync(Path.join(store, "info"), { recursive: true })
      Fs.writeFileSync(Path.join(store, "info", "alternates"), `${Path.join(other, ".git", "objects")}\n`)
      Fs.writeFileSync(Path.join(ws, ".git", "objects", "info", "alternates"), `${store}\n`)
      expectOutside(yield* runTool(ws, "git_show", { rev: blob }), /alternates/)
    }))

  it.effect("an objects directory that is a symbolic link to another repository's: refused", () =>
    Effect.gen(function*() {
      const { blob, other } = otherRepo("objectslink")
      const ws = initRepo(workspaceIn("objectslink"))
      Fs.rmSync(Path.join(ws, ".git", "objects"), { recursive: true })
      Fs.symlinkSync(Path.join(other, ".git", "objects"), Path.join(ws, ".git", "objects"))
      expectOutside(yield* runTool(ws, "git_show", { rev: blob }), /objects/)
    }))

  it.scoped("GIT_ALTERNATE_OBJECT_DIRECTORIES in the host's environment is not passed on", () =>
    Effect.gen(function*() {
      const { blob, other } = otherRepo("envalternates")
      const ws = initRepo(workspaceIn("envalternates"))
      commitAll(ws, "mine")
      yield* withEnv({ GIT_ALTERNATE_OBJECT_DIRECTORIES: Path.join(other, ".git", "objects") })
      const result = yield* runTool(ws, "git_show", { rev: blob })
      expect(result.success).toBe(false)
      expect(result.error ?? "").not.toMatch(/secret/)
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

  // the calls in one workspace share one tool system (toolsIn): one of its own per call costs a third more CPU
  it.scoped("a repository wholly inside the workspace still works, in-workspace alternates and a .git file included", () =>
    Effect.gen(function*() {
      const ws = initRepo(workspaceIn("inside"))
      commitAll(ws, "first")
      // a second object store inside the workspace, borrowed relatively
      const store = initRepo(Path.join(ws, "vendor", "store"))
      write(store, "lib.txt", "lib\n")
      commitAll(store, "store's commit")
      const lib = git(store, "rev-parse", "HEAD:lib.txt").trim()
      Fs.writeFileSync(Path.join(ws, ".git", "objects", "info", "alternates"), "../../vendor/store/.git/objects\n")
      const run = yield* toolsIn(ws)
      const shown = yield* run("git_show", { rev: lib })
      expect(shown.output).toBe("lib\n")
      write(ws, "b.txt", "b\n")
      expect((yield* run("git_add", { paths: ["b.txt"] })).success).toBe(true)
      const commit = yield* run("git_commit", { message: "second" })
      expect(commit.success, commit.error ?? "").toBe(true)
      const log = yield* run("git_log", {})
      expect(String(log.output)).toMatch(/second\n.*first$/)
      // the git directory moved inside the workspace and named by a .git file
      const moved = initRepo(workspaceIn("insidefile"))
      commitAll(moved, "moved")
      Fs.renameSync(Path.join(moved, ".git"), Path.join(moved, "repo.git"))
      Fs.writeFileSync(Path.join(moved, ".git"), "gitdir: repo.git\n")
      expect(String((yield* runTool(moved, "git_log", {})).output)).toMatch(/moved$/)
    }))
})
