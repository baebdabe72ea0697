/**
 * What the file-reading tools share: their tags, the names walks skip, how a file error becomes
 * a `ToolError`, and the closing notes of a walk (the directory errors and the patterns that
 * climb out are in `shared/walkArguments.ts`, with `list_files`).
 *
 * @since 0.1.0
 */
import { ToolError } from "../../../domain/errors.js"
import type { BinaryFile, FileTooLarge, SafeFsError } from "../../shared/safeFsError.js"
import type { ScanResult } from "../../shared/safeFsScan.js"

/** The tags of every reading tool. */
export const TAGS: ReadonlyArray<string> = ["files", "ported"]

/** Directories a walk never lists. */
export const SKIP_NAMES: ReadonlySet<string> = new Set([".git", "node_modules"])

/** Largest output (bytes of text) one call returns; past it the output is cut with a note. */
export const MAX_OUTPUT_BYTES = 256 * 1024

/** A `ToolError` of `tool`. */
export const failure = (tool: string, message: string, cause?: unknown): ToolError => new ToolError({ tool, message, cause })

/** A file error as the tool's own, with its message (the executor shows paths workspace-relative). */
export const fileFailure = (tool: string) => (error: SafeFsError | BinaryFile | FileTooLarge): ToolError =>
  failure(tool, error.message, error)

/** `n thing(s)`. */
export const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

/** The notes a walk ends with: links not followed, directories that could not be listed. */
export const walkNotes = (walked: ScanResult): Array<string> => [
  ...(walked.linksOut > 0
    ? [`(${plural(walked.linksOut, "symbolic link", "symbolic links")} not followed: ${
      walked.linksOut === 1 ? "it leads" : "they lead"
    } out of the workspace or to nothing)`]
    : []),
  ...(walked.unreadable > 0
    ? [`(${plural(walked.unreadable, "directory", "directories")} could not be listed (changed meanwhile, or no permission) and ${
      walked.unreadable === 1 ? "was" : "were"
    } skipped)`]
    : [])
]

const CONTROL = /[\u0000-\u001f\u007f]/

/**
 * A path or name as output shows it: quoted (JSON) when it holds a line break or another control
 * character. JSON escapes the C0 controls, not DEL: that one is escaped here.
 */
export const shownName = (name: string): string =>
  CONTROL.test(name) ? JSON.stringify(name).replaceAll("\u007f", "\\u007f") : name

/** A line of text shortened to at most `max` characters around `at` (a match), with ellipses. */
export const around = (line: string, at: number, max: number): string => {
  // a line of at most `max` characters starts at 0 and is kept whole, without ellipses
  const from = Math.max(0, Math.min(at - Math.floor(max / 3), line.length - max))
  return `${from > 0 ? "…" : ""}${line.slice(from, from + max)}${from + max < line.length ? "…" : ""}`
}
