/**
 * Arguments and output of the git tools: revisions and branch names that cannot be read as
 * options, workspace paths handed to git relative to the root (after `--`), and output cut
 * with a note on how to see the rest.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import { ToolError } from "../../../domain/errors.js"
import type { ResolvedPath } from "../../../domain/WorkspacePath.js"
import { GIT_MAX_OUTPUT_BYTES, type GitOutput } from "./gitCommand.js"
import { gitMessage } from "./repository.js"

/**
 * A revision or branch name as git takes it. One beginning with `-` is refused: git would read
 * it as an option (`--output=/file` writes a file); control characters are refused too.
 */
export const GitName = (what: string) =>
  Schema.String.check(
    Schema.isMinLength(1),
    Schema.isMaxLength(256),
    Schema.makeFilter(
      (s: string) => !s.startsWith("-") || `a ${what} must not begin with "-" (git would read it as an option)`,
      { jsonSchema: { pattern: "^[^-]" } }
    ),
    Schema.makeFilter((s: string) => !/[\u0000-\u001f\u007f]/.test(s) || `a ${what} must not contain control characters`, {
      jsonSchema: {}
    })
  )

/**
 * A resolved workspace path as git takes it: relative to the root (`.` for the root itself).
 * The resolver follows symbolic links, so a link inside the workspace is named by its target.
 */
export const gitPath = (root: string, path: ResolvedPath): string => NodePath.relative(root, path) || "."

/** The output, with a closing note when it was cut. */
export const withCutNote = (output: GitOutput, hint: string): string =>
  output.cut
    ? `${output.stdout}\n... [output cut at ${GIT_MAX_OUTPUT_BYTES / 1024} KiB: ${hint}]`
    : output.stdout

/** Fails with git's message unless the run succeeded (or was cut, which means it was producing output). */
export const succeeded = (tool: string, what: string) => (output: GitOutput): Effect.Effect<GitOutput, ToolError> =>
  output.cut || output.exitCode === 0
    ? Effect.succeed(output)
    : Effect.fail(new ToolError({ tool, message: `${what} failed: ${gitMessage(output)}` }))
