/**
 * The read-only git tools: `git_status`, `git_diff`, `git_log`, `git_show`, `git_branches`.
 * Each runs git through `repository.ts` (workspace root = top level, filters neutralized) with
 * the safety options of `gitCommand.ts`, takes no optional locks, and caps its output.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../defineBuiltin.js"
import { GitName, gitPath, succeeded, withCutNote } from "./gitArgs.js"
import { DIFF_SAFETY } from "./gitCommand.js"
import { openRepository } from "./repository.js"

const TAGS = ["git", "ported"]

/** The most commits `git_log` lists in one call. */
export const GIT_LOG_MAX_COUNT = 500

/** Submodules: their commits are compared, their work trees are not entered (no git runs inside them). */
const SUBMODULES = "--ignore-submodules=dirty"

export const gitStatus = make("git_status", {
  description: "Show the working tree status of the workspace's git repository: the branch (with ahead/behind) " +
    "and one line per changed path as `XY path`, X = staged state, Y = unstaged state " +
    "(M modified, A added, D deleted, R renamed, ?? untracked).",
  parameters: Schema.Struct({}),
  readOnly: true,
  tags: TAGS,
  timeout: "60 seconds",
  handler: () =>
    Effect.gen(function*() {
      const repo = yield* openRepository("git_status", true)
      const output = yield* repo.run(["status", "--porcelain=v1", "--branch", "--untracked-files=normal", SUBMODULES])
        .pipe(Effect.flatMap(succeeded("git_status", "git status")))
      const text = withCutNote(output, "too many changed paths; look at one directory with git_diff and a path")
        .trimEnd()
      return text.includes("\n") ? text : `${text}\n(nothing to commit, working tree clean)`
    })
})

export const gitDiff = make("git_diff", {
  description: "Show changes in the workspace's git repository as a unified diff: unstaged changes (work tree " +
    "against the index), or with staged=true the staged ones (index against HEAD). Untracked files are not " +
    "included (see git_status). Pass a path to limit it to one file or directory.",
  parameters: Schema.Struct({
    path: Schema.optional(
      WorkspacePath.annotate({ description: "Only this file or directory, relative to the workspace root" })
    ),
    staged: Schema.Boolean.annotate({ description: "Show the staged changes (git diff --cached) instead" }).pipe(
      Schema.withDecodingDefaultType(Effect.succeed(false))
    )
  }),
  readOnly: true,
  tags: TAGS,
  timeout: "60 seconds",
  handler: ({ path, staged }) =>
    Effect.gen(function*() {
      const repo = yield* openRepository("git_diff", true)
      // Unstaged: `diff-files -p`, the plumbing `git diff` runs, without the porcelain's refresh
      // of the index, which rewrites `.git/index` when stat data is stale (GIT_OPTIONAL_LOCKS=0
      // does not stop it, as of git 2.39): a read-only tool writes nothing, there either.
      // Staged: `git diff --cached` compares the index with HEAD (or, before the first commit,
      // with the empty tree) and leaves the index alone.
      const output = yield* repo.run([
        ...(staged ? ["diff", "--cached"] : ["diff-files", "-p"]),
        ...DIFF_SAFETY,
        SUBMODULES,
        "--",
        ...(path === undefined ? [] : [gitPath(repo.root, path)])
      ]).pipe(Effect.flatMap(succeeded("git_diff", "git diff")))
      if (!output.cut && output.stdout === "") {
        return `No ${staged ? "staged" : "unstaged"} changes${path === undefined ? "" : ` in ${gitPath(repo.root, path)}`}`
      }
      return withCutNote(output, "pass a path to see one file or directory at a time")
    })
})

export const gitLog = make("git_log", {
  description: "List the latest commits of the current branch, newest first, one a line: " +
    "`<short hash> <date> <author>: <subject>`. Pass a path for the commits that touched it.",
  parameters: Schema.Struct({
    max_count: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: GIT_LOG_MAX_COUNT })).annotate({
      description: `How many commits to list (1 to ${GIT_LOG_MAX_COUNT})`
    }).pipe(Schema.withDecodingDefaultType(Effect.succeed(20))),
    path: Schema.optional(
      WorkspacePath.annotate({ description: "Only commits touching this file or directory" })
    )
  }),
  readOnly: true,
  tags: TAGS,
  timeout: "60 seconds",
  handler: ({ max_count, path }) =>
    Effect.gen(function*() {
      const repo = yield* openRepository("git_log", true)
      const output = yield* repo.run([
        "log",
        ...DIFF_SAFETY,
        "--no-show-signature",
        // one more than asked: whether there are more is then known
        `--max-count=${max_count + 1}`,
        "--date=short",
        "--format=%h %ad %an: %s",
        "--",
        ...(path === undefined ? [] : [gitPath(repo.root, path)])
      ])
      if (!output.cut && output.exitCode !== 0) {
        if (/does not have any commits yet/.test(output.stderr)) return "No commits yet"
        return yield* succeeded("git_log", "git log")(output)
      }
      if (output.cut) return withCutNote(output, "lower max_count or pass a path")
      const lines = output.stdout.split("\n").filter((line) => line !== "")
      if (lines.length === 0) return path === undefined ? "No commits yet" : "No commits touch this path"
      return lines.length > max_count
        ? `${lines.slice(0, max_count).join("\n")}\n(more commits: raise max_count, up to ${GIT_LOG_MAX_COUNT}, or pass a path)`
        : lines.join("\n")
    })
})

export const gitShow = make("git_show", {
  description: "Show a commit of the workspace's git repository: its message, a diffstat and its patch. " +
    "rev is a commit (HEAD, HEAD~2, a hash, a branch or tag); `<rev>:<path>` shows a file as of that commit.",
  parameters: Schema.Struct({
    rev: GitName("revision").annotate({ description: "The commit (or `<rev>:<path>`) to show; default HEAD" }).pipe(
      Schema.withDecodingDefaultType(Effect.succeed("HEAD"))
    )
  }),
  readOnly: true,
  tags: TAGS,
  timeout: "60 seconds",
  handler: ({ rev }) =>
    Effect.gen(function*() {
      const repo = yield* openRepository("git_show", true)
      const output = yield* repo.run([
        "show",
        ...DIFF_SAFETY,
        "--no-show-signature",
        "--pretty=medium",
        "--patch-with-stat",
        "--end-of-options",
        rev,
        "--"
      ]).pipe(Effect.flatMap(succeeded("git_show", `git show ${rev}`)))
      if (output.stdout.includes("\u0000")) return `${rev} is binary content; it is not shown`
      return withCutNote(output, "the diffstat at the top lists the files; `<rev>:<path>` shows one file as of the commit")
    })
})

export const gitBranches = make("git_branches", {
  description: "List the branches of the workspace's git repository, local and remote-tracking, each with its " +
    "latest commit; the current one is marked with `*`.",
  parameters: Schema.Struct({}),
  readOnly: true,
  tags: TAGS,
  timeout: "60 seconds",
  handler: () =>
    Effect.gen(function*() {
      const repo = yield* openRepository("git_branches", true)
      const output = yield* repo.run(["branch", "--list", "--all", "--verbose", "--no-color"])
      if (!output.cut && output.exitCode !== 0) return yield* succeeded("git_branches", "git branch")(output)
      if (!output.cut && output.stdout.trim() === "") return "No branches yet (the repository has no commits)"
      return withCutNote(output, "too many branches to list")
    })
})

