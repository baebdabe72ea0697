/**
 * The tests of `gitTools.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * The git tools on real repositories in temp directories: normal use, a workspace that is no
 * repository (or only inside one), arguments that would read as options, caps, identity.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { GIT_MAX_OUTPUT_BYTES } from "../../../../src/tools/ported/git/gitCommand.js"
import { commitAll, git, gitTestBase, initRepo, reposWithHistory, runTool, toolsIn, withEnv, write } from "./gitFixture.js"

const base = gitTestBase("git-tools-")

const repoWithHistory = reposWithHistory(base)

// live clock: real git processes (@effect/platform Command) on real repositories
describe("the git tools", () => {

  // the calls in one workspace share one tool system (toolsIn): one of its own per call costs a third more CPU
  it.live("outside a repository, and in a directory inside one, every tool fails with a clear error", () =>
    Effect.gen(function*() {
      const plain = base.at("plain")
      Fs.mkdirSync(plain)
      const outer = repoWithHistory()
      const inner = Path.join(outer, "src")
      for (const workspace of [plain, inner]) {
        const run = yield* toolsIn(workspace)
        for (const [name, args] of [["git_status", {}], ["git_log", {}], ["git_add", { paths: ["."] }]] as const) {
          const r = yield* run(name, args)
          expect(r.errorCode, `${name} in ${workspace}`).toBe("TOOL_ERROR")
          expect(r.error).toContain("The workspace is not a git repository")
        }
      }
      // nothing was staged in the repository above
      expect(git(outer, "status", "--porcelain")).toBe("")
    }))

  it.live("git_status: branch line and short entries; a clean tree says so", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      const clean = yield* runTool(dir, "git_status", {})
      expect(clean.output).toBe("## main\n(nothing to commit, working tree clean)")
      write(dir, "README.md", "# Changed\n")
      write(dir, "new file.txt", "n\n")
      write(dir, "docs/héllo wörld.md", "changed\n")
      git(dir, "add", "README.md")
      const r = yield* runTool(dir, "git_status", {})
      expect(r.success).toBe(true)
      expect(String(r.output).split("\n")).toEqual([
        "## main",
        "M  README.md",
        // unicode names are shown as they are, not octal-escaped
        " M \"docs/héllo wörld.md\"",
        "?? \"new file.txt\""
      ])
    }))

  // its calls share one tool system (toolsIn): one of its own per call costs a third more CPU
  it.live("the read-only tools leave the index file alone (no optional locks), even when its stat data is stale", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      const run = yield* toolsIn(dir)
      const index = Path.join(dir, ".git", "index")
      // same content, newer times: a plain `git status` would refresh the index and write it
      const later = new Date(Date.now() + 60_000)
      Fs.utimesSync(Path.join(dir, "README.md"), later, later)
      const before = Fs.statSync(index)
      for (const [name, args] of [["git_status", {}], ["git_diff", {}], ["git_log", {}], ["git_show", {}], ["git_branches", {}]] as const) {
        expect((yield* run(name, args)).success, name).toBe(true)
        const after = Fs.statSync(index)
        expect({ name, ino: after.ino, mtime: after.mtimeMs }).toEqual({ name, ino: before.ino, mtime: before.mtimeMs })
      }
      // the control: git itself, with optional locks, does rewrite it
      git(dir, "status", "--porcelain")
      expect(Fs.statSync(index).mtimeMs).not.toBe(before.mtimeMs)
    }))

  // its calls share one tool system (toolsIn): one of its own per call costs a third more CPU
  it.live("git_diff: unstaged, staged, one path, nothing; untracked files are not in it", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      const run = yield* toolsIn(dir)
      const none = yield* run("git_diff", {})
      expect(none.output).toBe("No unstaged changes")
      write(dir, "README.md", "# Changed\n")
      write(dir, "src/app.ts", "export const x = 2\n")
      write(dir, "untracked.txt", "u\n")
      git(dir, "add", "src/app.ts")
      const unstaged = String((yield* run("git_diff", {})).output)
      expect(unstaged).toContain("diff --git a/README.md b/README.md")
      expect(unstaged).toContain("+# Changed")
      expect(unstaged).not.toContain("app.ts")
      expect(unstaged).not.toContain("untracked")
      const staged = String((yield* run("git_diff", { staged: true })).output)
      expect(staged).toContain("+export const x = 2")
      expect(staged).not.toContain("README")
      const onePath = yield* run("git_diff", { path: "src", staged: true })
      expect(String(onePath.output)).toContain("src/app.ts")
      expect((yield* run("git_diff", { path: "docs" })).output).toBe("No unstaged changes in docs")
    }))

  // its calls share one tool system per repository (toolsIn): one of its own per call costs a third more CPU
  it.live("git_log: newest first, max_count with a note when there are more, a path, an empty repository", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      const run = yield* toolsIn(dir)
      const all = String((yield* run("git_log", {})).output).split("\n")
      expect(all).toHaveLength(2)
      expect(all[0]).toMatch(/^[0-9a-f]{7,} \d{4}-\d{2}-\d{2} Test Author: Add app and docs$/)
      expect(all[1]).toMatch(/: Initial commit$/)
      const one = String((yield* run("git_log", { max_count: 1 })).output).split("\n")
      expect(one).toHaveLength(2)
      expect(one[1]).toBe("(more commits: raise max_count, up to 500, or pass a path)")
      // exactly max_count commits: no note
      expect(String((yield* run("git_log", { max_count: 2 })).output).split("\n")).toEqual(all)
      const readme = String((yield* run("git_log", { path: "README.md" })).output)
      expect(readme).toMatch(/: Initial commit$/)
      expect(readme).not.toContain("Add app")
      write(dir, "never-committed.txt", "x\n")
      expect((yield* run("git_log", { path: "never-committed.txt" })).output).toBe("No commits touch this path")
      expect((yield* run("git_log", { max_count: 0 })).errorCode).toBe("INVALID_ARGUMENTS")
      const empty = initRepo(base.at("empty-log"))
      const runEmpty = yield* toolsIn(empty)
      expect((yield* runEmpty("git_log", {})).output).toBe("No commits yet")
      expect((yield* runEmpty("git_branches", {})).output).toBe("No branches yet (the repository has no commits)")
      expect((yield* runEmpty("git_status", {})).output).toBe(
        "## No commits yet on main\n(nothing to commit, working tree clean)"
      )
    }))

  it.live("git_show: a commit with its stat and patch, a file at a revision, a bad revision", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      const head = String((yield* runTool(dir, "git_show", {})).output)
      expect(head).toContain("Add app and docs")
      expect(head).toContain(" src/app.ts ")
      expect(head).toContain("+export const x = 1")
      const file = yield* runTool(dir, "git_show", { rev: "HEAD~1:README.md" })
      expect(file.output).toBe("# Project\n")
      const bad = yield* runTool(dir, "git_show", { rev: "no-such-rev" })
      expect(bad.errorCode).toBe("TOOL_ERROR")
      expect(bad.error).toContain("git show no-such-rev failed")
      Fs.writeFileSync(Path.join(dir, "blob.bin"), Buffer.from([0, 1, 2, 0, 255]))
      commitAll(dir, "binary")
      expect((yield* runTool(dir, "git_show", { rev: "HEAD:blob.bin" })).output).toBe(
        "HEAD:blob.bin is binary content; it is not shown"
      )
    }))

  it.live("a revision or branch beginning with '-' is refused before git runs; paths beginning with '-' are paths", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      const target = base.at("written-by-git")
      for (
        const [name, args] of [
          ["git_show", { rev: `--output=${target}` }],
          ["git_show", { rev: "-p" }],
          ["git_checkout", { branch: "-b" }],
          ["git_checkout", { branch: "--orphan=x", create: true }],
          ["git_checkout", { branch: "-", create: false }]
        ] as const
      ) {
        const r = yield* runTool(dir, name, args)
        expect(r.errorCode, JSON.stringify(args)).toBe("INVALID_ARGUMENTS")
        expect(r.error).toContain("must not begin with \"-\"")
      }
      expect(Fs.existsSync(target)).toBe(false)
      expect(git(dir, "branch", "--show-current").trim()).toBe("main")
      // a file named like an option, and one named like a glob, are staged as themselves
      write(dir, "-A", "dash\n")
      write(dir, "--force", "dash\n")
      write(dir, "*.md", "star\n")
      write(dir, "other.md", "other\n")
      const added = yield* runTool(dir, "git_add", { paths: ["-A", "--force", "*.md"] })
      expect(added.success).toBe(true)
      expect(git(dir, "diff", "--cached", "--name-only").split("\n").filter(Boolean).sort()).toEqual(["*.md", "--force", "-A"])
      expect(git(dir, "status", "--porcelain")).toContain("?? other.md")
      const diff = String((yield* runTool(dir, "git_diff", { path: "-A", staged: true })).output)
      expect(diff).toContain("+dash")
      expect(diff).not.toContain("star")
    }))

  it.live("output is capped at 64 KiB with a note on how to see the rest", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      const line = "a line of text that repeats to make a large diff\n"
      write(dir, "big.txt", line.repeat(Math.ceil((GIT_MAX_OUTPUT_BYTES * 2) / line.length)))
      git(dir, "add", "big.txt")
      const r = yield* runTool(dir, "git_diff", { staged: true })
      const out = String(r.output)
      expect(r.success).toBe(true)
      expect(out).toContain("... [output cut at 64 KiB: pass a path to see one file or directory at a time]")
      expect(Buffer.byteLength(out)).toBeLessThan(GIT_MAX_OUTPUT_BYTES + 200)
      commitAll(dir, "big")
      const show = String((yield* runTool(dir, "git_show", {})).output)
      expect(show).toContain("[output cut at 64 KiB: the diffstat at the top lists the files")
      expect(show).toContain(" big.txt | ")
    }))

  // its calls share one tool system (toolsIn): one of its own per call costs a third more CPU
  it.live("git_add, git_commit, git_checkout: stage, commit, branch, switch back", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      const run = yield* toolsIn(dir)
      write(dir, "src/app.ts", "export const x = 3\n")
      write(dir, "src/new.ts", "new\n")
      Fs.rmSync(Path.join(dir, "README.md"))
      const added = yield* run("git_add", { paths: ["src", "README.md"] })
      expect(String(added.output).split("\n").sort()).toEqual([
        "Staged:",
        "add 'src/app.ts'",
        "add 'src/new.ts'",
        "remove 'README.md'"
      ])
      expect((yield* run("git_add", { paths: ["src"] })).output).toBe(
        "Nothing new to stage: the paths have no changes"
      )
      expect((yield* run("git_add", { paths: [] })).errorCode).toBe("INVALID_ARGUMENTS")
      const missing = yield* run("git_add", { paths: ["nope.txt"] })
      expect(missing.error).toContain("did not match any files")

      const committed = yield* run("git_commit", { message: "Change app\n\nWith a body." })
      expect(committed.output).toMatch(/^\[main [0-9a-f]{7,}\] Change app\n 3 files changed/)
      expect(git(dir, "log", "-1", "--format=%an <%ae>|%B").trim()).toBe("Test Author <author@example.com>|Change app\n\nWith a body.")
      const nothing = yield* run("git_commit", { message: "again" })
      expect(nothing.error).toMatch(/^Nothing to commit: stage changes with git_add first/)
      expect((yield* run("git_commit", { message: "  \n" })).errorCode).toBe("INVALID_ARGUMENTS")

      // git_checkout needs confirmation
      expect((yield* run("git_checkout", { branch: "feature", create: true }, {})).errorCode).toBe(
        "CONFIRMATION_REQUIRED"
      )
      const created = yield* run("git_checkout", { branch: "feature", create: true })
      expect(created.output).toBe("Switched to a new branch 'feature'")
      const exists = yield* run("git_checkout", { branch: "feature", create: true })
      expect(exists.error).toContain("already exists")
      const back = yield* run("git_checkout", { branch: "main" })
      expect(back.output).toBe("Switched to branch 'main'")
      const branches = String((yield* run("git_branches", {})).output)
      expect(branches).toMatch(/^ {2}feature +[0-9a-f]+ Change app\n\* main +[0-9a-f]+ Change app/)
    }))

  it.live("the host's GIT_* variables cannot point the tools at another repository or program", () =>
    Effect.gen(function*() {
      const dir = repoWithHistory()
      const other = initRepo(base.at("other-repo"))
      write(other, "other.txt", "other\n")
      commitAll(other, "Other history")
      const marker = base.at("external-diff-ran")
      const program = base.at("external-diff.sh")
      Fs.writeFileSync(program, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 })
      yield* withEnv({
        GIT_DIR: Path.join(other, ".git"),
        GIT_WORK_TREE: other,
        GIT_EXTERNAL_DIFF: program,
        GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='" + program + "'"
      })
      const log = String((yield* runTool(dir, "git_log", {})).output)
      expect(log).toContain("Add app and docs")
      expect(log).not.toContain("Other history")
      write(dir, "README.md", "changed\n")
      expect(String((yield* runTool(dir, "git_diff", {})).output)).toContain("+changed")
      expect(Fs.existsSync(marker)).toBe(false)
    }).pipe(Effect.scoped))
})
