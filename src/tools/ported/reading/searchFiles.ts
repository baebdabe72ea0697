/**
 * `search_files`: grep over a workspace directory. One line per matching line,
 * `path:line: text`, in walk order (breadth first, names sorted), up to `max_results`, then a
 * note that says how to get the rest.
 *
 * The search itself is `searchTree.ts`: the tree walked by `shared/safeFsScan.ts` (bound, links
 * inside the workspace followed once, links out reported, `.git` and `node_modules` skipped),
 * the files of each directory opened through its descriptor and read with synchronous calls,
 * on a big tree partly in worker threads (`searchWorkers.ts`); it stops as soon as
 * `max_results` is passed.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { defaultPath, WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { directoryFailure, escapingPattern } from "../../shared/walkArguments.js"
import { failure, plural, TAGS, walkNotes } from "./common.js"
import { freeCores } from "./freeCores.js"
import { compileGlob, type GlobMatcher } from "./glob.js"
import { SEARCH_FILE_MAX_BYTES } from "./searchFile.js"
import { compileMatcher } from "./searchMatch.js"
import { type Parallelism, searchTree } from "./searchTree.js"
import { SEARCH_MAX_WORKERS } from "./searchWorkers.js"

/** Largest `max_results`. */
export const SEARCH_MAX_RESULTS = 1000
/** Most files one call searches; past them it stops with what it found, and says so. */
export const SEARCH_MAX_FILES = 200_000
export { SEARCH_MAX_WORKERS } from "./searchWorkers.js"
/**
 * Files a search meets before it starts its workers: starting one costs tens of milliseconds,
 * about what the main thread takes to search this many small files alone.
 */
export const SEARCH_PARALLEL_MIN_FILES = 2000
/**
 * How a call made now runs in parallel: one worker per core that other processes leave free
 * (at least three quarters of it) besides the main thread's (`freeCores`, which does not count
 * this process's own work), at most `SEARCH_MAX_WORKERS`. A worker only pays when a core would
 * otherwise idle: measured on 2 cores with 50,000 small files, one worker made a search up to
 * 1.6x faster while a core was free, and 1.2-1.5x slower while other work kept both busy (it
 * costs CPU time to start and to talk to, and then gets no core of its own).
 */
export const searchParallelism = (free: number = freeCores()): Parallelism => ({
  workers: Math.min(SEARCH_MAX_WORKERS, Math.max(0, Math.ceil(free - 0.25) - 1)),
  minFiles: SEARCH_PARALLEL_MIN_FILES
})

const TOOL = "search_files"

/** `search_files` searching at most `maxFiles` files a call (the tool's is `SEARCH_MAX_FILES`; a test's is smaller). */
export const makeSearchFiles = (maxFiles: number) =>
  make(TOOL, {
    description: "Search the text files under a workspace directory for a literal string or a regular expression " +
      "(RE2 syntax), like grep. Prints one matching line per result as \"path:line: text\". Binary files, .git and " +
      "node_modules are skipped.",
    parameters: Schema.Struct({
      pattern: Schema.String.check(Schema.isMinLength(1)).annotate({
        description: "The text to find within one line (a literal, unless regex is true)"
      }),
      directory: WorkspacePath.annotate({ description: "Directory to search, relative to the workspace root" }).pipe(
        Schema.withDecodingDefaultType(Effect.sync(defaultPath(".")))
      ),
      glob: Schema.optional(
        Schema.String.check(Schema.isMinLength(1)).annotate({
          description: "Only search files whose name matches this glob, e.g. \"*.ts\"; with a \"/\", the glob is " +
            "matched against the path below the directory, e.g. \"src/**/*.ts\""
        })
      ),
      regex: Schema.Boolean.annotate({ description: "Treat pattern as a regular expression (RE2 syntax; ^ and $ match at line ends)" }).pipe(
        Schema.withDecodingDefaultType(Effect.succeed(false))
      ),
      case_sensitive: Schema.Boolean.annotate({ description: "Match upper and lower case exactly" }).pipe(
        Schema.withDecodingDefaultType(Effect.succeed(true))
      ),
      max_results: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: SEARCH_MAX_RESULTS })).annotate({
        description: `Most matching lines to return (1 to ${SEARCH_MAX_RESULTS})`
      }).pipe(Schema.withDecodingDefaultType(Effect.succeed(100)))
    }),
    readOnly: true,
    tags: TAGS,
    timeout: "60 seconds",
    handler: ({ case_sensitive, directory, glob, max_results, pattern, regex }) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace
        const matcher = compileMatcher(pattern, { regex, caseSensitive: case_sensitive })
        if (Result.isFailure(matcher)) return yield* failure(TOOL, matcher.failure)
        let globMatcher: GlobMatcher | undefined
        if (glob !== undefined) {
          if (escapingPattern(glob)) return yield* failure(TOOL, `the glob "${glob}" must be relative and must not contain ".."`)
          const compiled = compileGlob(glob)
          if (Result.isFailure(compiled)) return yield* failure(TOOL, compiled.failure)
          globMatcher = compiled.success
        }
        const shownDir = yield* workspace.display(directory)
        // one more than asked for: then "there are more" is known, not guessed
        const found = yield* Effect.scoped(searchTree({
          directory,
          shownDir,
          matcher: matcher.success,
          glob: globMatcher,
          limit: max_results + 1,
          maxFiles,
          resolveLink: workspace.tryResolve,
          parallel: searchParallelism()
        })).pipe(Effect.catch(directoryFailure(TOOL, directory)))
        const { lines, partial, searched, unreadable, walked } = found

        const where = `${shownDir === "." ? "the workspace" : shownDir}${glob === undefined ? "" : ` (files matching "${glob}")`}`
        const notes = [
          ...(lines.length > max_results
            ? [`(showing the first ${max_results} matching lines; there are more: raise max_results (at most ${SEARCH_MAX_RESULTS}), ` +
              "or narrow the search with directory or glob)"]
            : []),
          // the walk stops only at the limit (more lines than max_results) or at maxFiles
          ...(lines.length <= max_results && walked.stopped
            ? [`(the search stopped after ${searched} files; there may be more matches: narrow it with directory or glob)`]
            : []),
          ...(partial > 0
            ? [`(${plural(partial, "file was", "files were")} searched only in the first ${SEARCH_FILE_MAX_BYTES} bytes)`]
            : []),
          // (no test reaches this note: files are opened relative to their directory's descriptor, so only a race
          // (a file swapped between the walk and the read) makes one unreadable; searchOutput.test counts them)
          ...(unreadable > 0 ? [`(${plural(unreadable, "file", "files")} could not be read)`] : []),
          ...walkNotes(walked)
        ]
        const shown = lines.slice(0, max_results)
        const body = shown.length === 0 ? `No matches for ${JSON.stringify(pattern)} in ${where}.` : shown.join("\n")
        return [body, ...notes].join("\n")
      })
  })

export const searchFiles = makeSearchFiles(SEARCH_MAX_FILES)
