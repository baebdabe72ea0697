/**
 * `list_files`: a glob listing of a workspace directory (tinyglobby), with workspace-relative
 * paths, file sizes and plain-text markers, sorted and capped.
 *
 * Output, one entry a line, after a header line:
 * ```
 * 3 entries in src matching "*" (this level only):
 * [dir]  src/deep/
 * [file] src/index.ts (1234 bytes)
 * ```
 * Hidden entries are listed; the contents of `.git` directories are not. Symbolic links are
 * neither listed nor followed, and an entry reached through a link that leads out of the
 * workspace (a pattern such as `link/*`) is dropped, never stat'ed.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Option, Schema } from "effect"
import * as NodePath from "node:path"
import { glob } from "tinyglobby"
import { ToolError } from "../../domain/errors.js"
import { defaultPath, WorkspacePath } from "../../domain/WorkspacePath.js"
import { Workspace } from "../../services/Workspace.js"
import { make } from "../define.js"

/** Most entries one `list_files` call shows; the rest are counted in a closing note. */
export const LIST_FILES_MAX_ENTRIES = 500

const TOOL = "list_files"

/** Never crawled: what lies inside a `.git` directory (the directory itself is listed). */
const IGNORE = ["**/.git/**/*"]

const fail = (message: string, cause?: unknown) =>
  new ToolError(cause === undefined ? { tool: TOOL, message } : { tool: TOOL, message, cause })

/** A pattern that could climb out of the directory: absolute, or with a `..` segment. */
const escapingPattern = (pattern: string): boolean =>
  pattern.startsWith("/") || pattern.startsWith("\\") || /^[a-zA-Z]:/.test(pattern) ||
  pattern.split(/[/\\{},]/).some((segment) => segment === "..")

/** The glob to run: `recursive` matches the pattern at any depth. */
const globOf = (pattern: string, recursive: boolean): string =>
  recursive && !pattern.startsWith("**/") ? `**/${pattern}` : pattern

/** Lists the matches of `pattern` under `dir` (an absolute real path), relative to it. */
const crawl = (dir: string, pattern: string) =>
  Effect.tryPromise({
    try: (signal) =>
      glob(pattern, {
        cwd: dir,
        dot: true,
        onlyFiles: false,
        followSymbolicLinks: false,
        expandDirectories: false,
        ignore: IGNORE,
        signal
      }),
    catch: (cause) => fail(`cannot list with pattern "${pattern}": ${String(cause)}`, cause)
  })

/** One line of the listing for a match. */
const describe = (fs: FileSystem.FileSystem, absolute: string, shown: string, isDir: boolean) =>
  isDir
    ? Effect.succeed(`[dir]  ${shown}/`)
    : fs.stat(absolute).pipe(
      Effect.map((info) => `[file] ${shown} (${info.size} bytes)`),
      Effect.catchAll((error) => Effect.succeed(`[file] ${shown} (size unknown: ${error.message})`))
    )

/**
 * The `list_files` builtin: `directory="."`, `pattern="*"`, `recursive=false`; read-only.
 * A missing directory, a file given as the directory, or a pattern that climbs out of it
 * (absolute, `..`) is a `ToolError`; a directory outside the workspace is a `PathTraversalError`.
 */
export const listFiles = make(TOOL, {
  description: "List files and directories in a workspace directory that match a glob pattern. " +
    "Paths are relative to the workspace root; files show their size. " +
    `Set recursive to match the pattern at any depth. At most ${LIST_FILES_MAX_ENTRIES} entries are shown.`,
  parameters: Schema.Struct({
    directory: Schema.optionalWith(
      WorkspacePath.annotations({ description: "Directory to list, relative to the workspace root" }),
      { default: defaultPath(".") }
    ),
    pattern: Schema.optionalWith(
      Schema.String.pipe(Schema.minLength(1)).annotations({
        description: "Glob pattern matched against paths relative to the directory, e.g. \"*.ts\" or \"src/**/*.md\""
      }),
      { default: () => "*" }
    ),
    recursive: Schema.optionalWith(
      Schema.Boolean.annotations({ description: "Match the pattern at any depth below the directory" }),
      { default: () => false }
    )
  }),
  readOnly: true,
  tags: ["files", "builtin"],
  timeout: "30 seconds",
  handler: ({ directory, pattern, recursive }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const fs = yield* FileSystem.FileSystem
      const dir = directory // resolved by the executor
      const info = yield* fs.stat(dir).pipe(
        Effect.mapError((error) =>
          error._tag === "SystemError" && error.reason === "NotFound"
            ? fail(`directory "${directory}" does not exist`, error)
            : fail(`cannot read "${directory}": ${error.message}`, error)
        )
      )
      if (info.type !== "Directory") {
        return yield* fail(`"${directory}" is ${info.type === "File" ? "a file" : `a ${info.type}`}, not a directory`)
      }
      if (escapingPattern(pattern)) {
        return yield* fail(
          `the pattern "${pattern}" must be relative and must not contain ".."; choose another directory instead`
        )
      }
      const matches = yield* crawl(dir, globOf(pattern, recursive))

      // A pattern's static part (`link/*`) can walk through a symlink: keep only the entries
      // whose parent directory really lies in the workspace (checked once per directory).
      const parentInside = new Map<string, boolean>()
      const kept: Array<{ readonly absolute: string; readonly isDir: boolean }> = []
      let outside = 0
      for (const match of matches) {
        const isDir = match.endsWith("/")
        const absolute = NodePath.join(dir, match)
        const parent = NodePath.dirname(absolute)
        const lexical = NodePath.relative(dir, absolute)
        let inside = lexical !== "" && lexical !== ".." && !lexical.startsWith(`..${NodePath.sep}`)
        if (inside) {
          const known = parentInside.get(parent)
          inside = known ?? Option.isSome(yield* workspace.tryResolve(parent))
          if (known === undefined) parentInside.set(parent, inside)
        }
        if (inside) kept.push({ absolute: isDir ? absolute.replace(/[/\\]+$/, "") : absolute, isDir })
        else outside++
      }

      const shownDir = yield* workspace.display(dir)
      const where = `${shownDir === "." ? "the workspace root" : shownDir} matching "${pattern}" ` +
        (recursive ? "(at any depth)" : "(this level only)")
      const skipped = outside > 0
        ? `\n(${outside} ${outside === 1 ? "entry" : "entries"} reached through a symbolic link leading out of the workspace not listed)`
        : ""
      if (kept.length === 0) return `No entries in ${where}.${skipped}`

      const entries = yield* Effect.forEach(kept, (entry) =>
        Effect.map(workspace.display(entry.absolute), (shown) => ({ ...entry, shown })))
      entries.sort((a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0))
      const shown = entries.slice(0, LIST_FILES_MAX_ENTRIES)
      const lines = yield* Effect.forEach(shown, (e) => describe(fs, e.absolute, e.shown, e.isDir), {
        concurrency: 32
      })
      const count = `${entries.length} ${entries.length === 1 ? "entry" : "entries"}`
      const rest = entries.length - shown.length
      const more = rest > 0
        ? `\n... ${rest} more entries not shown (${entries.length} in all); narrow the listing with a more specific pattern or a subdirectory`
        : ""
      return `${count} in ${where}:\n${lines.join("\n")}${more}${skipped}`
    })
})
