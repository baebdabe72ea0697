/**
 * The git tools when git's answers are the rare ones, made by a `git` on PATH that answers some
 * commands itself and passes the rest to the real one: a location on more lines than three (a
 * path holding a newline) whose one-by-one runs then fail or print nothing, as when the
 * repository changes between the runs; a `git log` that prints no commit, a `git branch` that
 * prints an empty line. And how often the repository is located: once, with three lines.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { expectFailure } from "./gitFailuresHarness.js"
import { gitTestBase, readmeRepos, runTool, withEnv } from "./gitFixture.js"

const base = gitTestBase("git-answers-")

const repo = readmeRepos(base)

const realGit = ChildProcess.execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()

const LOCATE = "rev-parse --path-format=absolute --git-dir --git-common-dir --show-toplevel"

let count = 0
/**
 * A directory holding a `git` that runs `cases` (`sh` case branches on "$*", the global options
 * first), logs its arguments to `log`, and passes everything else to the real git.
 */
const fakeGit = (cases: string): { readonly dir: string; readonly log: string } => {
  const dir = base.at(`bin-${++count}`)
  Fs.mkdirSync(dir)
  const log = Path.join(dir, "calls.log")
  Fs.writeFileSync(
    Path.join(dir, "git"),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\ncase "$*" in\n${cases}\nesac\nexec '${realGit}' "$@"\n`,
    { mode: 0o755 }
  )
  return { dir, log }
}

const withGitFrom = (dir: string) => withEnv({ PATH: `${dir}:${process.env.PATH ?? ""}` })

// live clock: real git processes (effect/process ChildProcess) on real repositories
describe("the git tools on git's rare answers", () => {
  it.live("the repository is located by one git run when it prints three lines", () =>
    Effect.gen(function*() {
      const dir = repo()
      const { dir: bin, log } = fakeGit("")
      yield* withGitFrom(bin)
      const result = yield* runTool(dir, "git_status", {})
      expect(result.output).toBe("## main\n(nothing to commit, working tree clean)")
      const locating = Fs.readFileSync(log, "utf8").split("\n").filter((line) => line.includes(" rev-parse "))
      expect(locating).toHaveLength(1)
      expect(locating[0]!.endsWith(` ${LOCATE}`)).toBe(true)
    }))

  it.live("a location on four lines, then a failing one-by-one run: git's message", () =>
    Effect.gen(function*() {
      const dir = repo()
      const { dir: bin } = fakeGit(
        `*" ${LOCATE}") printf 'a\\nb\\nc\\nd\\n'; exit 0;;\n` +
          `*" rev-parse --path-format=absolute --git-dir") echo 'fatal: the repository went away' >&2; exit 128;;`
      )
      yield* withGitFrom(bin)
      expectFailure(yield* runTool(dir, "git_log", {}), "git cannot use this repository: fatal: the repository went away")
    }))

  it.live("a location on four lines, then an empty one-by-one answer: the tool says git did not say", () =>
    Effect.gen(function*() {
      const dir = repo()
      const { dir: bin } = fakeGit(
        `*" ${LOCATE}") printf 'a\\nb\\nc\\nd\\n'; exit 0;;\n` +
          `*" rev-parse --path-format=absolute --show-toplevel") echo; exit 0;;`
      )
      yield* withGitFrom(bin)
      expectFailure(yield* runTool(dir, "git_status", {}), "git did not say where this repository lies")
    }))

  it.live("a git log that prints no commit: no commits yet, or none touching the path", () =>
    Effect.gen(function*() {
      const dir = repo()
      const { dir: bin } = fakeGit(`*" log "*) exit 0;;`)
      yield* withGitFrom(bin)
      expect((yield* runTool(dir, "git_log", {})).output).toBe("No commits yet")
      expect((yield* runTool(dir, "git_log", { path: "README.md" })).output).toBe("No commits touch this path")
    }))

  it.live("a git branch that prints only a line break: no branches yet", () =>
    Effect.gen(function*() {
      const dir = repo()
      const { dir: bin } = fakeGit(`*" branch "*) echo; exit 0;;`)
      yield* withGitFrom(bin)
      expect((yield* runTool(dir, "git_branches", {})).output).toBe("No branches yet (the repository has no commits)")
    }))
})
