/**
 * A workspace whose repository reaches another one: a `.git` file naming another git
 * directory, a worktree-style git directory whose `commondir` points out, alternates
 * (absolute, relative, chained, from the host's environment), an objects directory that is a
 * symbolic link out, a workspace below another repository. Every git tool refuses, before git
 * reads or writes the other repository; a repository wholly inside the workspace (in-workspace
 * alternates included) still works.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { commitAll, git, gitTestBase, initRepo, runTool, withEnv, write } from "./gitFixture.js"

const base = gitTestBase("git-other-")

/** An outside repository `<name>/other` with one commit holding `secret.txt`; returns it and that blob's hash. */
const otherRepo = (name: string): { readonly other: string; readonly blob: string } => {
  const other = initRepo(Path.join(base.at(name), "other"))
  write(other, "secret.txt", "the other repository's secret\n")
  commitAll(other, "other's commit")
  return { other, blob: git(other, "rev-parse", "HEAD:secret.txt").trim() }
}

/** Everything below a repository's git directory, as path and content digest: equal means untouched. */
const gitDirState = (gitDir: string): ReadonlyArray<string> =>
  Fs.readdirSync(gitDir, { recursive: true, encoding: "utf8" }).sort().map((rel) => {
    const file = Path.join(gitDir, rel)
    const stats = Fs.lstatSync(file)
    return stats.isFile()
      ? `${rel} ${Crypto.createHash("sha256").update(Fs.readFileSync(file)).digest("hex")} ${stats.mtimeMs}`
      : rel
  })

/** A workspace `<name>/ws` (a plain directory) with a file to stage. */
const workspaceIn = (name: string): string => {
  const ws = Path.join(base.at(name), "ws")
  write(ws, "a.txt", "mine\n")
  return ws
}

/** A refusal of a git tool that says the repository reaches outside the workspace. */
const expectOutside = (result: { readonly success: boolean; readonly errorCode: string | null; readonly error: string | null }, what: RegExp) => {
  expect(result.success).toBe(false)
  expect(result.errorCode).toBe("TOOL_ERROR")
  expect(result.error ?? "").toMatch(/outside the workspace/)
  expect(result.error ?? "").toMatch(what)
}

const READ_CALLS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["git_log", {}],
  ["git_show", {}],
  ["git_status", {}],
  ["git_diff", {}],
  ["git_branches", {}]
]

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
