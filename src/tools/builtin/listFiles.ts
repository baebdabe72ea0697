/**
 * `list_files`: a glob listing of a workspace directory, with workspace-relative paths, file
 * sizes and plain-text markers, sorted and capped.
 *
 * Output, one entry a line, after a header line:
 * ```
 * 3 entries in src matching "*" (this level only):
 * [dir]  src/deep/
 * [file] src/index.ts (1234 bytes)
 * [other] src/events (FIFO)
 * ```
 * The directory is walked by `shared/safeFsWalk.ts` (each directory opened without following a
 * link and checked to be where it should be) and each path below it, relative to it, is matched
 * with picomatch: a pattern is never handed to a glob library as a path to open, so whatever its
 * escapes mean (`.\./outside/*`), nothing above the directory is ever read. The walk goes only
 * as deep as the pattern can match and only along its static prefix. Hidden entries are listed;
 * the contents of `.git` directories are not. Symbolic links are neither listed nor followed,
 * except one named in the pattern's static prefix (`link/*`) that resolves inside the
 * workspace; one leading out is counted in a note, never opened.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Order from "effect/Order"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import type Picomatch from "picomatch"
import { ToolError } from "../../domain/errors.js"
import { relativeToRoot } from "../../layers/relativeToRoot.js"
import { defaultPath, WorkspacePath } from "../../domain/WorkspacePath.js"
import { Workspace } from "../../services/Workspace.js"
import { make } from "../defineBuiltin.js"
import { openDirectory } from "../shared/safeFs.js"
import { kindOf } from "../shared/safeFsNode.js"
import { statEntries, walk, type WalkEntry } from "../shared/safeFsWalk.js"
import { directoryFailure, escapingPattern } from "../shared/walkArguments.js"

/** Most entries one `list_files` call shows; the rest are counted in a closing note. */
export const LIST_FILES_MAX_ENTRIES = 500

/** Most entries one `list_files` call visits; past that the walk stops and says so. */
export const LIST_FILES_MAX_VISITED = 50_000

const TOOL = "list_files"

/** The glob to run: `recursive` matches the pattern at any depth. */
const globOf = (pattern: string, recursive: boolean): string =>
  recursive && !pattern.startsWith("**/") ? `**/${pattern}` : pattern

/** How a glob is matched and how far the walk must go for it. */
interface Plan {
  readonly matches: (entry: WalkEntry) => boolean
  /** Whether the walk lists the directory at `rel`. */
  readonly descend: (rel: string) => boolean
  /** Whether `rel` lies on the glob's static prefix (`src/deep` of `src/deep/*.ts`). */
  readonly onPrefix: (rel: string) => boolean
}

/** picomatch, loaded by the first listing, not when the library is imported (Node keeps it then). */
const loadPicomatch: Effect.Effect<typeof Picomatch> = Effect.map(Effect.promise(() => import("picomatch")), (m) => m.default)

const planOf = (picomatch: typeof Picomatch, glob: string): Plan => {
  const isMatch = picomatch(glob, { dot: true })
  // the static prefix, unescaped (`.\./x` is the literal `../x`, which no entry below is);
  // `scan` drops a leading `./`, and a `.` segment further on matches nothing in picomatch
  const prefix = picomatch.scan(glob).base.replace(/\\(.)/g, "$1").split("/").filter((s) => s !== "")
  const maxDepth = glob.includes("**") ? Number.POSITIVE_INFINITY : glob.split("/").length
  const agrees = (segments: ReadonlyArray<string>) => segments.every((s, i) => i >= prefix.length || s === prefix[i])
  return {
    matches: (entry) => entry.kind === "directory" ? isMatch(entry.rel) || isMatch(`${entry.rel}/`) : isMatch(entry.rel),
    descend: (rel) => {
      const segments = rel.split("/")
      return segments.length < maxDepth && segments.at(-1) !== ".git" && agrees(segments)
    },
    onPrefix: (rel) => {
      const segments = rel.split("/")
      return segments.length <= prefix.length && agrees(segments)
    }
  }
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** Entries in the order of the paths shown (code unit order, as `sort` without a comparator). */
const byShown = Order.mapInput(Order.String, (entry: { readonly shown: string }) => entry.shown)

/**
 * The `list_files` builtin: `directory="."`, `pattern="*"`, `recursive=false`; read-only.
 * A missing directory, a file given as the directory, or a pattern that climbs out of it
 * (absolute, `..`) is a `ToolError`; a directory outside the workspace is a `PathTraversalError`.
 *
 * @since 0.1.0
 * @category tools
 */
export const listFiles = make(TOOL, {
  description: "List files and directories in a workspace directory that match a glob pattern. " +
    "Paths are relative to the workspace root; files show their size. " +
    `Set recursive to match the pattern at any depth. At most ${LIST_FILES_MAX_ENTRIES} entries are shown.`,
  parameters: Schema.Struct({
    directory: WorkspacePath.annotate({ description: "Directory to list, relative to the workspace root" }).pipe(
      Schema.withDecodingDefaultType(Effect.sync(defaultPath(".")))
    ),
    pattern: Schema.String.check(Schema.isMinLength(1)).annotate({
      description: "Glob pattern matched against paths relative to the directory, e.g. \"*.ts\" or \"src/**/*.md\""
    }).pipe(Schema.withDecodingDefaultType(Effect.succeed("*"))),
    recursive: Schema.Boolean.annotate({ description: "Match the pattern at any depth below the directory" }).pipe(
      Schema.withDecodingDefaultType(Effect.succeed(false))
    )
  }),
  readOnly: true,
  tags: ["files", "builtin"],
  timeout: "30 seconds",
  handler: ({ directory, pattern, recursive }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      yield* Effect.scoped(openDirectory(directory)).pipe(Effect.catch(directoryFailure(TOOL, directory)))
      if (escapingPattern(pattern)) {
        return yield* new ToolError({
          tool: TOOL,
          message: `the pattern "${pattern}" must be relative and must not contain ".."; choose another directory instead`
        })
      }
      const picomatch = yield* loadPicomatch
      // a pattern picomatch will not compile (one past its 65,536 characters, say) is the caller's to fix
      const plan = yield* Effect.try({
        try: () => planOf(picomatch, globOf(pattern, recursive)),
        catch: (error) =>
          new ToolError({
            tool: TOOL,
            message: `the pattern is not valid: ${error instanceof Error ? error.message : String(error)}`
          })
      })

      // A link on the pattern's static prefix (`link/*`) is followed when it resolves inside the
      // workspace. At most one can lead out: the walk goes down the prefix one name per level,
      // and it ends where a link leads out.
      let linkedOut = false
      const follow = (entry: WalkEntry) =>
        plan.onPrefix(entry.rel)
          ? Effect.tap(workspace.tryResolve(NodePath.join(entry.dir, entry.name)), (target) =>
            Effect.sync(() => {
              if (Option.isNone(target)) linkedOut = true
            }))
          : Effect.succeed(Option.none())
      const walked = yield* walk(directory, { descend: plan.descend, follow, maxEntries: LIST_FILES_MAX_VISITED }).pipe(
        Effect.catch(directoryFailure(TOOL, directory))
      )

      const shownDir = yield* workspace.display(directory)
      const matched = walked.entries
        .filter((entry) => entry.kind !== "symlink" && plan.matches(entry))
        .map((entry) => ({ ...entry, shown: NodePath.join(shownDir, entry.rel) }))
        .sort(byShown)

      const where = `${shownDir === "." ? "the workspace root" : shownDir} matching "${pattern}" ` +
        (recursive ? "(at any depth)" : "(this level only)")
      const notes = [
        linkedOut ? "(1 symbolic link leading out of the workspace not followed)" : "",
        walked.skipped > 0
          ? `(${plural(walked.skipped, "directory", "directories")} changed while being listed, or could not be read, and ${
            walked.skipped === 1 ? "was" : "were"
          } skipped)`
          : "",
        walked.truncated
          ? `(the listing stopped after visiting ${LIST_FILES_MAX_VISITED} entries; narrow it with a more specific pattern or a subdirectory)`
          : ""
      ].filter((note) => note !== "")
      if (matched.length === 0) return [`No entries in ${where}.`, ...notes].join("\n")

      const shown = matched.slice(0, LIST_FILES_MAX_ENTRIES)
      // sizes of the shown files, through each directory's checked descriptor
      const byDir = new Map<string, Array<string>>()
      for (const entry of shown) {
        // a directory is shown without a size
        if (entry.kind === "directory") continue
        const names = byDir.get(entry.dir)
        if (names === undefined) byDir.set(entry.dir, [entry.name])
        else names.push(entry.name)
      }
      const sizes = new Map(
        yield* Effect.forEach(byDir, ([dir, names]) => Effect.map(statEntries(dir, names), (stats) => [dir, stats] as const), {
          concurrency: 8
        })
      )
      // a stat's error names the absolute path: shown workspace-relative, as the entries are
      const root = yield* workspace.root
      const lines = shown.map((entry) => {
        if (entry.kind === "directory") return `[dir]  ${entry.shown}/`
        const info = sizes.get(entry.dir)?.get(entry.name)
        if (entry.kind === "other") {
          // a FIFO, a socket, a device: named for what it is, not called a file
          return `[other] ${entry.shown} (${info !== undefined && Result.isSuccess(info) ? kindOf(info.success) : "not a regular file"})`
        }
        if (info !== undefined && Result.isSuccess(info)) return `[file] ${entry.shown} (${info.success.size} bytes)`
        const why = info === undefined ? "not found" : relativeToRoot(info.failure.message, root)
        return `[file] ${entry.shown} (size unknown: ${why})`
      })
      const count = plural(matched.length, "entry", "entries")
      const rest = matched.length - shown.length
      const more = rest > 0
        ? [`... ${rest} more entries not shown (${matched.length} in all); narrow the listing with a more specific pattern or a subdirectory`]
        : []
      return [`${count} in ${where}:`, ...lines, ...more, ...notes].join("\n")
    })
})
