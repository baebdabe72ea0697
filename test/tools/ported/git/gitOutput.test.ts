/**
 * What the git tools print at their edges: the 64 KiB cap of git_status, git_log and
 * git_branches with each one's note; `runGit` itself (a run of exactly the cap is not cut, one
 * byte more is, stdin is empty); git_checkout's two streams joined; git_commit's summary as git
 * prints it; the messages for nothing staged, no identity and a bad commit message; a workspace
 * whose path holds a newline.
 */
import { describe, expect, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { gitEnvironment, runGit } from "../../../../src/tools/ported/git/gitCommand.js"
import { commitAll, git, gitTestBase, initRepo, runTool, withEnv, write } from "./gitFixture.js"

const base = gitTestBase("git-output-")

let count = 0
/** A repository with one commit of README.md. */
const repo = (name = `repo-${++count}`): string => {
  const dir = initRepo(base.at(name))
  write(dir, "README.md", "# Project\n")
  commitAll(dir, "Initial commit")
  return dir
}

const CUT = "\n... [output cut at 64 KiB: "

// live clock: real git processes (effect/process ChildProcess) on real repositories
describe("the git tools' output caps", () => {
  it.live("git_status past 64 KiB ends with its note", () =>
    Effect.gen(function*() {
      const dir = repo()
      for (let i = 0; i < 400; i++) write(dir, `${String(i).padStart(4, "0")}-${"n".repeat(200)}.txt`, "x\n")
      const out = String((yield* runTool(dir, "git_status", {})).output)
      expect(out.startsWith(`## main\n?? 0000-${"n".repeat(200)}.txt\n`)).toBe(true)
      expect(out.endsWith(`${CUT}too many changed paths; look at one directory with git_diff and a path]`)).toBe(true)
    }))

  it.live("git_log past 64 KiB ends with its note and no count note", () =>
    Effect.gen(function*() {
      const dir = repo()
      const stream = Array.from({ length: 300 }, (_, i) => {
        const message = `${"s".repeat(250)} ${i}\n`
        return `commit refs/heads/main\ncommitter Test Author <author@example.com> ${1_700_000_000 + i} +0000\n` +
          `data ${Buffer.byteLength(message)}\n${message}${i === 0 ? "from refs/heads/main^0\n" : ""}\n`
      }).join("")
      ChildProcess.execFileSync("git", ["fast-import", "--quiet"], { cwd: dir, input: stream, stdio: ["pipe", "ignore", "pipe"] })
      const out = String((yield* runTool(dir, "git_log", { max_count: 500 })).output)
      expect(out).toMatch(new RegExp(`^[0-9a-f]+ 2023-11-\\d\\d Test Author: s{250} 299\n`))
      expect(out.endsWith(`${CUT}lower max_count or pass a path]`)).toBe(true)
      expect(out).not.toContain("more commits")
    }))

  it.live("git_branches past 64 KiB ends with its note", () =>
    Effect.gen(function*() {
      const dir = repo()
      const head = git(dir, "rev-parse", "HEAD").trim()
      const refs = Array.from({ length: 400 }, (_, i) => `create refs/heads/b${String(i).padStart(3, "0")}-${"r".repeat(200)} ${head}\n`)
      ChildProcess.execFileSync("git", ["update-ref", "--stdin"], { cwd: dir, input: refs.join(""), stdio: ["pipe", "ignore", "pipe"] })
      const out = String((yield* runTool(dir, "git_branches", {})).output)
      expect(out.startsWith(`  b000-${"r".repeat(200)} `)).toBe(true)
      expect(out.endsWith(`${CUT}too many branches to list]`)).toBe(true)
    }))
})

// live clock: real git processes (effect/process ChildProcess) on real repositories
describe("runGit", () => {
  const run = (root: string, args: ReadonlyArray<string>, maxBytes: number) =>
    runGit(root, args, gitEnvironment(root, true), maxBytes).pipe(Effect.provide(NodeServices.layer))

  it.live("output of exactly the cap is whole; one byte more is cut (no exit status, no stderr); a failure keeps stderr", () =>
    Effect.gen(function*() {
      const dir = repo()
      write(dir, "ten.txt", "0123456789")
      commitAll(dir, "ten")
      expect(yield* run(dir, ["cat-file", "blob", "HEAD:ten.txt"], 10)).toEqual({
        exitCode: 0,
        stdout: "0123456789",
        cut: false,
        stderr: ""
      })
      expect(yield* run(dir, ["cat-file", "blob", "HEAD:ten.txt"], 9)).toEqual({
        exitCode: undefined,
        stdout: "012345678",
        cut: true,
        stderr: ""
      })
      expect(yield* run(dir, ["cat-file", "blob", "HEAD:missing.txt"], 100)).toMatchObject({
        exitCode: 128,
        stdout: "",
        cut: false,
        stderr: "fatal: path 'missing.txt' does not exist in 'HEAD'\n"
      })
    }))

  it.live("git's stdin is empty", () =>
    Effect.gen(function*() {
      const dir = repo()
      // the hash of the empty blob
      expect((yield* run(dir, ["hash-object", "--stdin"], 1000)).stdout).toBe("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n")
    }))

  it.live("a cut run ends git: it does not run on to its end", () =>
    Effect.gen(function*() {
      const dir = repo()
      write(dir, "big.txt", "0123456789abcdef".repeat(64 * 1024))
      commitAll(dir, "a MiB")
      // a git that records its exit status once the real one has ended
      const bin = base.at("ending-bin")
      Fs.mkdirSync(bin)
      const ended = Path.join(bin, "ended")
      const realGit = ChildProcess.execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()
      Fs.writeFileSync(Path.join(bin, "git"), `#!/bin/sh\n'${realGit}' "$@"\necho "$?" > '${ended}'\n`, { mode: 0o755 })
      yield* withEnv({ PATH: `${bin}:${process.env.PATH ?? ""}` })
      const output = yield* run(dir, ["cat-file", "blob", "HEAD:big.txt"], 10)
      expect(output).toEqual({ exitCode: undefined, stdout: "0123456789", cut: true, stderr: "" })
      // ended by its signal (no status written) or by the closed pipe: never a run to its end
      expect(Fs.existsSync(ended) ? Fs.readFileSync(ended, "utf8") : "no status").not.toBe("0\n")
    }))
})

// live clock: real git processes (effect/process ChildProcess) on real repositories
describe("git_diff, git_commit, git_checkout messages", () => {

  it.live("git_commit without an identity says how to set one, in full", () =>
    Effect.gen(function*() {
      const dir = initRepo(base.at("anonymous"), false)
      write(dir, "a.txt", "a\n")
      git(dir, "add", "a.txt")
      yield* withEnv({ EMAIL: undefined, GIT_AUTHOR_NAME: undefined, GIT_AUTHOR_EMAIL: undefined })
      expect((yield* runTool(dir, "git_commit", { message: "first" })).error).toBe(
        "No git identity to commit with: set user.name and user.email (`git config user.name \"Your Name\"` and " +
          "`git config user.email you@example.com`, in the repository or with --global), or GIT_AUTHOR_NAME, " +
          "GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL in the environment of the tool system"
      )
    }).pipe(Effect.scoped))

  it.live("git_checkout shows both of git's streams: the switch, then the carried changes or the tracking state", () =>
    Effect.gen(function*() {
      const dir = repo()
      git(dir, "branch", "--track", "follower", "main")
      expect((yield* runTool(dir, "git_checkout", { branch: "follower" })).output).toBe(
        "Switched to branch 'follower'\nYour branch is up to date with 'main'."
      )
      write(dir, "README.md", "# Carried\n")
      expect((yield* runTool(dir, "git_checkout", { branch: "main" })).output).toBe("Switched to branch 'main'\nM\tREADME.md")
    }))

  it.live("git_checkout of a branch that does not exist says so and how to create it; create makes it", () =>
    Effect.gen(function*() {
      const dir = repo()
      const missing = yield* runTool(dir, "git_checkout", { branch: "nope" })
      expect([missing.errorCode, missing.error]).toEqual(["TOOL_ERROR", "No branch named nope (pass create: true to create it)"])
      expect(git(dir, "branch", "--show-current").trim()).toBe("main")
      expect((yield* runTool(dir, "git_checkout", { branch: "nope", create: true })).output).toBe(
        "Switched to a new branch 'nope'"
      )
      expect(git(dir, "branch", "--show-current").trim()).toBe("nope")
    }))

  it.live("git_checkout: git's refusal to lose local changes is its own message, not a missing branch", () =>
    Effect.gen(function*() {
      const dir = repo()
      git(dir, "branch", "old")
      write(dir, "README.md", "# Newer\n")
      commitAll(dir, "newer")
      write(dir, "README.md", "# Local edits\n")
      expect((yield* runTool(dir, "git_checkout", { branch: "old" })).error).toBe(
        "git switch failed: error: Your local changes to the following files would be overwritten by checkout:\n" +
          "\tREADME.md\nPlease commit your changes or stash them before you switch branches.\nAborting"
      )
      expect(Fs.readFileSync(Path.join(dir, "README.md"), "utf8")).toBe("# Local edits\n")
      expect(git(dir, "branch", "--show-current").trim()).toBe("main")
    }))

  it.live("a workspace whose path holds a newline is the repository's top level", () =>
    Effect.gen(function*() {
      const dir = repo("line\nbreak")
      expect((yield* runTool(dir, "git_status", {})).output).toBe("## main\n(nothing to commit, working tree clean)")
    }))
})
