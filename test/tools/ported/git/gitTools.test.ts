/**
 * The git tools on real repositories in temp directories: normal use, a workspace that is no
 * repository (or only inside one), arguments that would read as options, caps, identity.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Result } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Exports, PathTraversalError } from "../../../../src/index.js"
import { gitTools } from "../../../../src/tools/ported/git/index.js"
import { MAX_FILTER_DRIVERS } from "../../../../src/tools/ported/git/repository.js"
import { commitAll, git, gitTestBase, initRepo, reposWithHistory, runTool, withEnv, write } from "./gitFixture.js"

const base = gitTestBase("git-tools-")

const repoWithHistory = reposWithHistory(base)

const traversalOf = (exit: Exit.Exit<unknown, unknown>): Option.Option<PathTraversalError> =>
  Exit.isFailure(exit)
    ? Option.filter(Result.getSuccess(Cause.findDefect(exit.cause)), (d): d is PathTraversalError => d instanceof PathTraversalError)
    : Option.none()

// live clock: real git processes (effect/process ChildProcess) on real repositories
describe("the git tools", () => {
  it("are the eight of the catalog with their flags and tags", () => {
    expect(gitTools.map((t) => t.name)).toEqual([
      "git_status",
      "git_diff",
      "git_log",
      "git_show",
      "git_branches",
      "git_add",
      "git_commit",
      "git_checkout"
    ])
    const flags = Object.fromEntries(gitTools.map((t) => [t.name, [t.spec.readOnly, t.requiresConfirmation, t.scopedWrite]]))
    expect(flags).toEqual({
      git_status: [true, false, false],
      git_diff: [true, false, false],
      git_log: [true, false, false],
      git_show: [true, false, false],
      git_branches: [true, false, false],
      git_add: [false, false, false],
      git_commit: [false, false, false],
      git_checkout: [false, true, false]
    })
    for (const tool of gitTools) expect(tool.tags).toEqual(["git", "ported"])
    expect(gitTools.find((t) => t.name === "git_add")?.pathFields).toEqual(["paths"])
    expect(gitTools.find((t) => t.name === "git_diff")?.pathFields).toEqual(["path"])
    for (const tool of gitTools) {
      for (const format of Exports.formats) expect(() => Exports.exportSpec(tool.spec, format), tool.name).not.toThrow()
    }
  })

  it.live("a repository whose configuration defines more filter drivers than the cap is refused; at the cap it is used", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      // the drivers as `git config filter.f<i>.clean cat` writes them, in one write instead of a git run each
      const drivers = Array.from({ length: MAX_FILTER_DRIVERS }, (_, i) => `[filter "f${i}"]\n\tclean = cat\n`)
      Fs.appendFileSync(Path.join(dir, ".git", "config"), drivers.join(""))
      expect((yield* runTool(dir, "git_status", {})).success).toBe(true)
      git(dir, "config", `filter.f${MAX_FILTER_DRIVERS}.clean`, "cat")
      const over = yield* runTool(dir, "git_status", {})
      expect(over.error).toBe(
        `the repository's configuration defines ${MAX_FILTER_DRIVERS + 1} filter drivers (at most ${MAX_FILTER_DRIVERS})`
      )
    }))

  it.live("a path leading out of the workspace is refused before git runs", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      for (const [name, args] of [["git_add", { paths: ["../"] }], ["git_diff", { path: "../../etc" }]] as const) {
        expect(Option.isSome(traversalOf(yield* Effect.exit(runTool(dir, name, args)))), name).toBe(true)
      }
    }))

  it.live("git_checkout switches branches only: a name that is a file never restores the file", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      write(dir, "README.md", "local edits that `git checkout README.md` would throw away\n")
      const r = yield* runTool(dir, "git_checkout", { branch: "README.md" })
      expect(r.error).toBe("No branch named README.md (pass create: true to create it)")
      expect(Fs.readFileSync(Path.join(dir, "README.md"), "utf8")).toContain("local edits")
    }))

  it.live("git_checkout refuses a switch that would lose uncommitted changes with git's own message, and keeps them", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      git(dir, "switch", "-q", "-c", "other")
      write(dir, "README.md", "# Changed on other\n")
      commitAll(dir, "Change the readme")
      git(dir, "switch", "-q", "main")
      write(dir, "README.md", "uncommitted edits\n")
      const r = yield* runTool(dir, "git_checkout", { branch: "other" })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toMatch(/^git switch failed: error: Your local changes to the following files would be overwritten/)
      expect(r.error).toContain("README.md")
      expect(Fs.readFileSync(Path.join(dir, "README.md"), "utf8")).toBe("uncommitted edits\n")
    }))

  it.live("git_checkout: creating a branch that exists is git's own refusal; switching to the current one says so", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      const exists = yield* runTool(dir, "git_checkout", { branch: "main", create: true })
      expect(exists.error).toBe("git switch failed: fatal: a branch named 'main' already exists")
      const same = yield* runTool(dir, "git_checkout", { branch: "main" })
      expect(same.output).toBe("Already on 'main'")
    }))

  it.live("git_commit without an identity fails clearly (none is guessed); one from the environment is used", () =>
    Effect.gen(function*() {
      const dir = initRepo(base.at("no-identity"), false)
      write(dir, "a.txt", "a\n")
      yield* runTool(dir, "git_add", { paths: ["a.txt"] })
      yield* withEnv({ EMAIL: undefined, GIT_AUTHOR_NAME: undefined, GIT_AUTHOR_EMAIL: undefined })
      const r = yield* runTool(dir, "git_commit", { message: "first" })
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toMatch(/^No git identity to commit with: set user.name and user.email/)
      expect(() => git(dir, "rev-parse", "--verify", "-q", "HEAD")).toThrow()
      yield* withEnv({
        GIT_AUTHOR_NAME: "Env Author",
        GIT_AUTHOR_EMAIL: "env@example.com",
        GIT_COMMITTER_NAME: "Env Committer",
        GIT_COMMITTER_EMAIL: "committer@example.com"
      })
      const ok = yield* runTool(dir, "git_commit", { message: "first" })
      expect(ok.success).toBe(true)
      expect(git(dir, "log", "-1", "--format=%an <%ae> / %cn").trim()).toBe("Env Author <env@example.com> / Env Committer")
    }).pipe(Effect.scoped))

  it.live("a repository whose core.worktree points elsewhere is refused", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      const elsewhere = base.at("elsewhere")
      Fs.mkdirSync(elsewhere)
      write(elsewhere, "secret.txt", "outside the workspace\n")
      git(dir, "config", "core.worktree", elsewhere)
      const r = yield* runTool(dir, "git_status", {})
      expect(r.errorCode).toBe("TOOL_ERROR")
      expect(r.error).toContain("not the workspace root")
      expect(String(r.output ?? "")).not.toContain("secret")
    }))
})
