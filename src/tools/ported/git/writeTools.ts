/**
 * The git tools that change the repository: `git_add`, `git_commit`, `git_checkout`. Hooks are
 * read from `/dev/null` (and `git_commit` also passes `--no-verify`), commits are never signed,
 * and the repository's filter drivers are neutralized (`repository.ts`).
 *
 * Identity: `git_commit` uses the identity git is configured with (the repository's or the
 * user's `user.name`/`user.email`, or `GIT_AUTHOR_*`/`GIT_COMMITTER_*` in the host's
 * environment). None is made up: with `user.useConfigOnly` git does not guess one from the host
 * name either, and without one the tool fails saying how to set it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../defineBuiltin.js"
import { GitName, gitPath, succeeded } from "./gitArgs.js"
import { gitMessage, openRepository } from "./repository.js"

const TAGS = ["git", "ported"]

/** The most paths one `git_add` call stages. */
export const GIT_ADD_MAX_PATHS = 1000

export const gitAdd = make("git_add", {
  description: "Stage files for the next commit (git add): new, modified or deleted files, or whole directories.",
  parameters: Schema.Struct({
    paths: Schema.Array(
      WorkspacePath.annotate({ description: "A file or directory, relative to the workspace root" })
    ).check(Schema.isMinLength(1), Schema.isMaxLength(GIT_ADD_MAX_PATHS)).annotate({
      description: "The files or directories to stage (\".\" for everything)"
    })
  }),
  tags: TAGS,
  timeout: "60 seconds",
  handler: ({ paths }) =>
    Effect.gen(function*() {
      const repo = yield* openRepository("git_add", false)
      const output = yield* repo.run(["add", "--verbose", "--", ...paths.map((p) => gitPath(repo.root, p))])
        .pipe(Effect.flatMap(succeeded("git_add", "git add")))
      const staged = output.stdout.trim()
      return staged === "" ? "Nothing new to stage: the paths have no changes" : `Staged:\n${staged}`
    })
})

/** git's complaints about a missing identity. */
const NO_IDENTITY = /identity unknown|no email was given|no name was given|empty ident name|unable to auto-detect/i

export const gitCommit = make("git_commit", {
  description: "Commit the staged changes (see git_add) with a message. Returns the new commit's short hash " +
    "and a summary of what changed. Repository hooks are not run and the commit is not signed.",
  parameters: Schema.Struct({
    message: Schema.String.check(
      Schema.makeFilter((s: string) => s.trim() !== "" || "the commit message must not be empty", { jsonSchema: {} }),
      Schema.makeFilter((s: string) => !s.includes("\u0000") || "the commit message must not contain a NUL character", {
        jsonSchema: {}
      })
    ).annotate({ description: "The commit message: a short subject line, then optionally a blank line and a body" })
  }),
  tags: TAGS,
  timeout: "60 seconds",
  handler: ({ message }) =>
    Effect.gen(function*() {
      const repo = yield* openRepository("git_commit", false)
      const output = yield* repo.run(["commit", "--no-verify", "--no-gpg-sign", `--message=${message}`])
      const fail = (text: string) => Effect.fail(new ToolError({ tool: "git_commit", message: text }))
      if (output.exitCode === 0 || output.cut) return output.stdout.trim()
      if (NO_IDENTITY.test(output.stderr)) {
        return yield* fail(
          "No git identity to commit with: set user.name and user.email (`git config user.name \"Your Name\"` and " +
            "`git config user.email you@example.com`, in the repository or with --global), or GIT_AUTHOR_NAME, " +
            "GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL in the environment of the tool system"
        )
      }
      if (/nothing (added )?to commit|no changes added to commit/.test(output.stdout)) {
        return yield* fail(`Nothing to commit: stage changes with git_add first\n${gitMessage(output)}`)
      }
      return yield* fail(`git commit failed: ${gitMessage(output)}`)
    })
})

export const gitCheckout = make("git_checkout", {
  description: "Switch the workspace to another branch (git switch); with create=true, create it from the " +
    "current commit first. Uncommitted changes are carried over, and git refuses when they would be lost. " +
    "Files are never restored or discarded by this tool.",
  parameters: Schema.Struct({
    branch: GitName("branch name").annotate({ description: "The branch to switch to (or to create)" }),
    create: Schema.Boolean.annotate({ description: "Create the branch from the current commit, then switch to it" }).pipe(
      Schema.withDecodingDefaultType(Effect.succeed(false))
    )
  }),
  requiresConfirmation: true,
  tags: TAGS,
  timeout: "60 seconds",
  handler: ({ branch, create }) =>
    Effect.gen(function*() {
      const repo = yield* openRepository("git_checkout", false)
      const output = yield* repo.run([
        "switch",
        "--no-recurse-submodules",
        ...(create ? [`--create=${branch}`] : ["--end-of-options", branch])
      ])
      // only a switch to a missing branch says "invalid reference" (it fails, with a short stderr; --create
      // never does, and a branch name holds no space, so a success cannot print it)
      if (output.exitCode !== 0 && !output.cut && !create && /invalid reference/.test(output.stderr)) {
        return yield* Effect.fail(
          new ToolError({ tool: "git_checkout", message: `No branch named ${branch} (pass create: true to create it)` })
        )
      }
      const done = yield* succeeded("git_checkout", "git switch")(output)
      return [done.stderr.trim(), done.stdout.trim()].filter((s) => s !== "").join("\n")
    })
})
