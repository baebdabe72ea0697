/**
 * `find_files`: the files and directories under a workspace directory whose name matches a
 * glob, at any depth, like `find -name`. Workspace-relative paths, one a line (directories end
 * with `/`), in walk order (breadth first, names sorted), up to `max_results`, then a note.
 *
 * The tree is walked by `shared/safeFsScan.ts`, which lists each directory with synchronous
 * calls and never stats what the listing already tells; the glob is matched against names (or
 * paths below the directory) only, never handed to anything that opens a path (`glob.ts`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import { defaultPath, WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { scan } from "../../shared/safeFsScan.js"
import { directoryFailure, escapingPattern } from "../../shared/walkArguments.js"
import { failure, shownName, SKIP_NAMES, TAGS, walkNotes } from "./common.js"
import { compileGlob } from "./glob.js"

/** Largest `max_results`. */
export const FIND_MAX_RESULTS = 5000
/** Most entries one call looks at; past them it stops with what it found, and says so. */
export const FIND_MAX_ENTRIES = 1_000_000

const TOOL = "find_files"

/** `find_files` looking at most at `maxEntries` entries (the tool's is `FIND_MAX_ENTRIES`; a test's is smaller). */
export const makeFindFiles = (maxEntries: number) =>
  make(TOOL, {
    description: "Find files and directories by name under a workspace directory, at any depth (like find -name). " +
      "Prints workspace-relative paths, directories ending with \"/\". .git and node_modules are not searched.",
    parameters: Schema.Struct({
      name_pattern: Schema.String.check(Schema.isMinLength(1)).annotate({
        description: "Glob matched against each name, e.g. \"*.md\" or \"test_*\"; with a \"/\", against the path " +
          "below the directory, e.g. \"src/**/index.ts\""
      }),
      directory: WorkspacePath.annotate({ description: "Directory to search, relative to the workspace root" }).pipe(
        Schema.withDecodingDefaultType(Effect.sync(defaultPath(".")))
      ),
      max_results: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: FIND_MAX_RESULTS })).annotate({
        description: `Most paths to return (1 to ${FIND_MAX_RESULTS})`
      }).pipe(Schema.withDecodingDefaultType(Effect.succeed(200)))
    }),
    readOnly: true,
    tags: TAGS,
    timeout: "60 seconds",
    handler: ({ directory, max_results, name_pattern }) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace
        if (escapingPattern(name_pattern)) {
          return yield* failure(TOOL, `the pattern "${name_pattern}" must be relative and must not contain ".."`)
        }
        const glob = compileGlob(name_pattern)
        if (Result.isFailure(glob)) return yield* failure(TOOL, glob.failure)
        const matches = glob.success
        const shownDir = yield* workspace.display(directory)
        const limit = max_results + 1
        const out: Array<string> = []
        let seen = 0
        const walked = yield* scan(directory, {
          maxDepth: Number.POSITIVE_INFINITY,
          skipNames: SKIP_NAMES,
          resolveLink: workspace.tryResolve,
          visit: (dir, entries) =>
            Effect.sync(() => {
              if (seen >= maxEntries) return false
              seen += entries.length
              for (const entry of entries) {
                if (entry._tag === "LinkOut" || !matches(entry.name, dir.rel)) continue
                out.push(`${shownName(NodePath.join(shownDir, dir.rel, entry.name))}${entry._tag === "Directory" ? "/" : ""}`)
                if (out.length >= limit) return false
              }
              return true
            })
        }).pipe(Effect.catch(directoryFailure(TOOL, directory)))

        const where = shownDir === "." ? "the workspace" : shownDir
        const notes = [
          ...(out.length > max_results
            ? [`(showing the first ${max_results} paths; there are more: raise max_results (at most ${FIND_MAX_RESULTS}), ` +
              "or narrow name_pattern or directory)"]
            : []),
          ...(out.length <= max_results && walked.stopped
            ? [`(the search stopped after ${seen} entries; there may be more: narrow it with directory or name_pattern)`]
            : []),
          ...walkNotes(walked)
        ]
        const body = out.length === 0
          ? `No files or directories named "${name_pattern}" in ${where}.`
          : out.slice(0, max_results).join("\n")
        return [body, ...notes].join("\n")
      })
  })

export const findFiles = makeFindFiles(FIND_MAX_ENTRIES)
