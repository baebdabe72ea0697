/**
 * What the tools that walk a directory (`list_files`, `find_files`, `search_files`,
 * `directory_tree`) say about their arguments: a pattern that would climb out of the directory,
 * and a directory that cannot be walked, in one set of words.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { ToolError } from "../../domain/errors.js"
import type { SafeFsError } from "./safeFsError.js"
import { kindOf, lstat } from "./safeFsNode.js"

/** A pattern that could climb out of the directory: absolute, a drive letter, or with a `..` segment. */
export const escapingPattern = (pattern: string): boolean =>
  pattern.startsWith("/") || pattern.startsWith("\\") || /^[a-zA-Z]:/.test(pattern) ||
  pattern.split(/[/\\{},]/).some((segment) => segment === "..")

/** The `ToolError` of `tool` for a directory that cannot be walked: missing, not a directory (named by its kind), or another failure. */
export const directoryFailure = (tool: string, directory: string) => (error: SafeFsError): Effect.Effect<never, ToolError> =>
  error.reason === "NotFound"
    ? Effect.fail(new ToolError({ tool, message: `directory "${directory}" does not exist`, cause: error }))
    : error.reason === "NotDirectory"
    ? Effect.flatMap(Effect.result(lstat(directory)), (info) => {
      const kind = Result.isSuccess(info) ? kindOf(info.success) : "file"
      return Effect.fail(new ToolError({ tool, message: `"${directory}" is a ${kind}, not a directory`, cause: error }))
    })
    : Effect.fail(new ToolError({ tool, message: error.message, cause: error }))
