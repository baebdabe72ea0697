/**
 * A repository whose own configuration names a program at every place git would run one:
 * core.fsmonitor, pagers, diff.external, a diff driver's command and textconv, filter drivers
 * (clean, smudge, a long-running process, one with a name holding "=" and ".", defined in an
 * included file), hooks (by core.hooksPath and in .git/hooks), gpg for signing and for showing
 * signatures, an editor. Each program only creates a marker file. Plain git on such a repository
 * creates markers (the control); every git tool on it creates none.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { commitAll, git, gitLoose, gitTestBase, initRepo, runTool, write } from "./gitFixture.js"

const base = gitTestBase("git-hostile-")

const HOOKS = [
  "pre-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "post-checkout",
  "post-index-change",
  "reference-transaction",
  "pre-auto-gc"
]

/** A program `dir/<file>` that creates `markers/<marker>`, then does `then` (pass the input through, say). */
const program = (dir: string, markers: string, marker: string, then = "exit 0", file = marker): string => {
  const path = Path.join(dir, file)
  Fs.writeFileSync(path, `#!/bin/sh\ntouch '${Path.join(markers, marker)}'\n${then}\n`, { mode: 0o755 })
  return path
}

/** Writes a commit object from its text; returns its hash. */
const writeCommitObject = (repo: string, text: string): string => {
  const file = Path.join(repo, ".git", "commit-object.txt")
  Fs.writeFileSync(file, text)
  const hash = git(repo, "hash-object", "-t", "commit", "-w", file).trim()
  Fs.rmSync(file)
  return hash
}

/** Makes the hostile repository `<base>/<name>/repo`; returns it and its marker directory. */
const hostileRepo = (name: string): { readonly repo: string; readonly markers: string } => {
  const home = base.at(name)
  const repo = Path.join(home, "repo")
  const bin = Path.join(home, "bin")
  const markers = Path.join(home, "markers")
  const hooks = Path.join(home, "hooks")
  for (const dir of [bin, markers, hooks]) Fs.mkdirSync(dir, { recursive: true })
  initRepo(repo)
  write(repo, "a.txt", "a\n")
  write(repo, "b.txt", "b\n")
  write(repo, ".gitattributes", "a.txt diff=evil filter=evil\nb.txt filter=we=ird.name\n")
  commitAll(repo, "init")
  // a branch whose files differ from the later ones: switching to it writes them (smudge filters)
  git(repo, "branch", "old")

  const at = (n: string, then?: string) => program(bin, markers, n, then)
  const set = (key: string, value: string) => git(repo, "config", key, value)
  set("core.fsmonitor", at("fsmonitor"))
  set("core.pager", at("pager", "exec cat"))
  for (const cmd of ["status", "diff", "log", "show", "branch"]) set(`pager.${cmd}`, at(`pager-${cmd}`, "exec cat"))
  set("core.editor", at("editor"))
  set("sequence.editor", at("sequence-editor"))
  set("diff.external", at("diff-external"))
  set("diff.evil.command", at("diff-command"))
  set("diff.evil.textconv", at("textconv", "cat \"$1\""))
  set("filter.evil.clean", at("clean", "exec cat"))
  set("filter.evil.smudge", at("smudge", "exec cat"))
  set("filter.evil.required", "true")
  set("commit.gpgSign", "true")
  set("log.showSignature", "true")
  set("gpg.program", at("gpg", "exit 1"))
  set("core.sshCommand", at("ssh"))
  set("core.hooksPath", hooks)
  for (const hook of HOOKS) {
    program(hooks, markers, `hook-${hook}`, "exit 0", hook)
    program(Path.join(repo, ".git", "hooks"), markers, `git-dir-hook-${hook}`, "exit 0", hook)
  }
  // a filter driver whose name holds "=" and ".", defined in a file the config includes
  const included = Path.join(home, "included.cfg")
  Fs.writeFileSync(
    included,
    `[filter "we=ird.name"]\n\tclean = ${at("weird-clean", "exec cat")}\n\tprocess = ${at("weird-process")}\n`
  )
  set("include.path", included)

  // HEAD gets a (fake) signature, so showing signatures would run gpg.program
  const commit = git(repo, "cat-file", "commit", "HEAD")
  const signed = commit.replace(
    /^(committer .*)$/m,
    "$1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"
  )
  git(repo, "update-ref", "HEAD", writeCommitObject(repo, signed))

  // work-tree changes, so that status and diff must read the files (and would filter them)
  write(repo, "a.txt", "a changed\n")
  write(repo, "b.txt", "b changed\n")
  // the setup's own update-ref ran the reference-transaction hook: start with no marker
  for (const marker of Fs.readdirSync(markers)) Fs.rmSync(Path.join(markers, marker))
  return { repo, markers }
}

const markersIn = (dir: string): ReadonlyArray<string> => Fs.readdirSync(dir).sort()

describe("a repository's configuration cannot make the git tools run a program", () => {
  it("control: plain git on the hostile repository runs its programs", () => {
    const { markers, repo } = hostileRepo("control")
    gitLoose(repo, "status")
    gitLoose(repo, "diff", "--", "a.txt")
    gitLoose(repo, "diff", "--", "b.txt")
    gitLoose(repo, "log", "-1")
    gitLoose(repo, "show", "HEAD")
    gitLoose(repo, "add", "a.txt")
    gitLoose(repo, "commit", "-m", "signed")
    gitLoose(repo, "commit", "--no-gpg-sign", "-m", "unsigned")
    gitLoose(repo, "checkout", "-b", "other")
    const ran = markersIn(markers)
    for (
      const expected of [
        "fsmonitor",
        "clean",
        "smudge",
        "textconv",
        "weird-process",
        "gpg",
        "hook-pre-commit",
        "hook-post-checkout",
        "hook-post-index-change",
        "hook-reference-transaction"
      ]
    ) expect(ran, expected).toContain(expected)
    expect(ran.some((m) => m === "diff-external" || m === "diff-command"), ran.join()).toBe(true)
  })

  it.live("every git tool runs on it, succeeds, and no marker appears", () =>
    Effect.gen(function*() {
      const { markers, repo } = hostileRepo("tools")
      const calls: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
        ["git_status", {}],
        ["git_diff", {}],
        ["git_diff", { path: "a.txt" }],
        ["git_log", {}],
        ["git_log", { path: "a.txt" }],
        ["git_show", {}],
        ["git_show", { rev: "HEAD:a.txt" }],
        ["git_branches", {}],
        ["git_add", { paths: ["a.txt", "b.txt"] }],
        ["git_diff", { staged: true }],
        ["git_commit", { message: "committed by the tool" }],
        ["git_show", {}],
        ["git_checkout", { branch: "side", create: true }],
        ["git_checkout", { branch: "old" }],
        ["git_checkout", { branch: "main" }]
      ]
      for (const [name, args] of calls) {
        const r = yield* runTool(repo, name, args)
        expect(r.error, `${name} ${JSON.stringify(args)}`).toBeNull()
        expect(markersIn(markers), `${name} ${JSON.stringify(args)}`).toEqual([])
      }
      // the work was really done: filters off, the files' own bytes were committed
      expect(git(repo, "log", "-1", "--format=%s")).toBe("committed by the tool\n")
      expect(git(repo, "show", "HEAD:b.txt")).toBe("b changed\n")
      expect(git(repo, "branch", "--show-current").trim()).toBe("main")
      expect(Fs.readFileSync(Path.join(repo, "a.txt"), "utf8")).toBe("a changed\n")
    }))
})
