/**
 * `search_files`: grep over a workspace directory. One line per matching line,
 * `path:line: text`, in walk order (breadth first, names sorted), up to `max_results`, then a
 * note that says how to get the rest.
 *
 * The tree is walked by `shared/safeFsScan.ts` (bound, links inside the workspace followed
 * once, links out reported, `.git` and `node_modules` skipped). The files of each directory
 * are opened through its descriptor and read with synchronous calls, in batches of
 * `SEARCH_BATCH_FILES` (the event loop runs between batches): on a tree of 50,000 small files
 * that is several times faster than libuv's thread pool, whose round trips cost more than the
 * reads. Larger files and links to files are streamed (`searchStreamed`), at most
 * `SEARCH_STREAMS` at a time. The walk stops as soon as `max_results` is passed.
 *
 * @since 0.1.0
 */
import { Effect, Either, Schema } from "effect"
import * as NodePath from "node:path"
import { defaultPath, WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../define.js"
import { scan, type ScanDirectory, type ScanEntry } from "../../shared/safeFsScan.js"
import { directoryFailure, escapingPattern, failure, plural, shownName, SKIP_NAMES, TAGS, walkNotes } from "./common.js"
import { compileGlob, type GlobMatcher } from "./glob.js"
import { type Outcome, SEARCH_FILE_MAX_BYTES, searchSmallSync, searchStreamed, SYNC_MAX_BYTES } from "./searchFile.js"
import { compileMatcher, type Matcher } from "./searchMatch.js"

/** Largest `max_results`. */
export const SEARCH_MAX_RESULTS = 1000
/** Files read synchronously in one step. */
export const SEARCH_BATCH_FILES = 64
/** Files streamed at the same time. */
export const SEARCH_STREAMS = 8
/** Most files one call searches; past them it stops with what it found, and says so. */
export const SEARCH_MAX_FILES = 200_000

const TOOL = "search_files"

/** What the search counted besides its hits. */
interface Tally {
  unreadable: number
  partial: number
  /** Files searched so far. */
  searched: number
}

/** Searches the files of one open directory; the lines found are appended to `out` (at most `limit`). */
const searchDirectory = (
  dir: ScanDirectory,
  entries: ReadonlyArray<ScanEntry>,
  search: {
    readonly matcher: Matcher
    readonly glob: GlobMatcher | undefined
    readonly shownDir: string
    readonly limit: number
    readonly buffer: Buffer
    readonly out: Array<string>
    readonly tally: Tally
  }
) =>
  Effect.gen(function*() {
    const { buffer, glob, limit, matcher, out, shownDir, tally } = search
    if (tally.searched >= SEARCH_MAX_FILES) return false
    const files = entries.filter((entry): entry is Extract<ScanEntry, { _tag: "File" }> =>
      entry._tag === "File" && !entry.repeat &&
      (glob === undefined || glob(entry.name, dir.rel === "" ? entry.name : `${dir.rel}/${entry.name}`))
    )
    tally.searched += files.length
    const outcomes: Array<Outcome | undefined> = new Array(files.length)
    const streamed: Array<number> = []
    // synchronous batches, stopping once the hits so far pass the limit
    let found = out.length
    let i = 0
    while (i < files.length && found < limit) {
      const end = Math.min(files.length, i + SEARCH_BATCH_FILES)
      found = yield* Effect.sync(() => {
        let hits = found
        for (; i < end && hits < limit; i++) {
          const file = files[i]
          if (file === undefined) continue
          if (file.target !== undefined) {
            streamed.push(i)
            continue
          }
          const outcome = searchSmallSync(dir, file.name, matcher, limit - hits, buffer)
          if (outcome._tag === "Large") streamed.push(i)
          if (outcome._tag === "Searched") hits += outcome.hits.length
          outcomes[i] = outcome
        }
        return hits
      })
    }
    yield* Effect.forEach(streamed, (index) => {
      const file = files[index]
      return file === undefined ? Effect.void : Effect.map(
        searchStreamed(file.target ?? NodePath.join(dir.path, file.name), matcher, limit),
        (outcome) => {
          outcomes[index] = outcome
        }
      )
    }, { concurrency: SEARCH_STREAMS, discard: true })
    // the lines, in name order
    for (let index = 0; index < files.length && out.length < limit; index++) {
      const outcome = outcomes[index]
      if (outcome === undefined) continue
      if (outcome._tag === "Unreadable") tally.unreadable += outcome.error.reason === "NotFound" ? 0 : 1
      else if (outcome._tag === "Searched") {
        if (outcome.partial) tally.partial++
        if (outcome.hits.length === 0) continue
        const shown = shownName(NodePath.join(shownDir, dir.rel, files[index]?.name ?? ""))
        for (const hit of outcome.hits) {
          if (out.length >= limit) break
          out.push(`${shown}:${hit.line}: ${hit.text}`)
        }
      }
    }
    return out.length < limit
  })

export const searchFiles = make(TOOL, {
  description: "Search the text files under a workspace directory for a literal string or a regular expression " +
    "(RE2 syntax), like grep. Prints one matching line per result as \"path:line: text\". Binary files, .git and " +
    "node_modules are skipped.",
  parameters: Schema.Struct({
    pattern: Schema.String.pipe(Schema.minLength(1)).annotations({
      description: "The text to find (a literal, unless regex is true)"
    }),
    directory: Schema.optionalWith(
      WorkspacePath.annotations({ description: "Directory to search, relative to the workspace root" }),
      { default: defaultPath(".") }
    ),
    glob: Schema.optional(
      Schema.String.pipe(Schema.minLength(1)).annotations({
        description: "Only search files whose name matches this glob, e.g. \"*.ts\"; with a \"/\", the glob is " +
          "matched against the path below the directory, e.g. \"src/**/*.ts\""
      })
    ),
    regex: Schema.optionalWith(
      Schema.Boolean.annotations({ description: "Treat pattern as a regular expression (RE2 syntax; ^ and $ match at line ends)" }),
      { default: () => false }
    ),
    case_sensitive: Schema.optionalWith(
      Schema.Boolean.annotations({ description: "Match upper and lower case exactly" }),
      { default: () => true }
    ),
    max_results: Schema.optionalWith(
      Schema.Int.pipe(Schema.between(1, SEARCH_MAX_RESULTS)).annotations({
        description: `Most matching lines to return (1 to ${SEARCH_MAX_RESULTS})`
      }),
      { default: () => 100 }
    )
  }),
  readOnly: true,
  tags: TAGS,
  timeout: "60 seconds",
  handler: ({ case_sensitive, directory, glob, max_results, pattern, regex }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const matcher = compileMatcher(pattern, { regex, caseSensitive: case_sensitive })
      if (Either.isLeft(matcher)) return yield* failure(TOOL, matcher.left)
      let globMatcher: GlobMatcher | undefined
      if (glob !== undefined) {
        if (escapingPattern(glob)) return yield* failure(TOOL, `the glob "${glob}" must be relative and must not contain ".."`)
        const compiled = compileGlob(glob)
        if (Either.isLeft(compiled)) return yield* failure(TOOL, compiled.left)
        globMatcher = compiled.right
      }
      const shownDir = yield* workspace.display(directory)
      // one more than asked for: then "there are more" is known, not guessed
      const limit = max_results + 1
      const out: Array<string> = []
      const tally: Tally = { unreadable: 0, partial: 0, searched: 0 }
      const search = { matcher: matcher.right, glob: globMatcher, shownDir, limit, buffer: Buffer.allocUnsafe(SYNC_MAX_BYTES), out, tally }
      const walked = yield* scan(directory, {
        maxDepth: Number.POSITIVE_INFINITY,
        skipNames: SKIP_NAMES,
        resolveLink: workspace.tryResolve,
        visit: (dir, entries) => searchDirectory(dir, entries, search)
      }).pipe(Effect.catchAll(directoryFailure(TOOL, directory)))

      const where = `${shownDir === "." ? "the workspace" : shownDir}${glob === undefined ? "" : ` (files matching "${glob}")`}`
      const notes = [
        ...(out.length > max_results
          ? [`(showing the first ${max_results} matching lines; there are more: raise max_results (at most ${SEARCH_MAX_RESULTS}), ` +
            "or narrow the search with directory or glob)"]
          : []),
        ...(out.length <= max_results && tally.searched >= SEARCH_MAX_FILES && walked.stopped
          ? [`(the search stopped after ${tally.searched} files; there may be more matches: narrow it with directory or glob)`]
          : []),
        ...(tally.partial > 0
          ? [`(${plural(tally.partial, "file was", "files were")} searched only in the first ${SEARCH_FILE_MAX_BYTES} bytes)`]
          : []),
        ...(tally.unreadable > 0 ? [`(${plural(tally.unreadable, "file", "files")} could not be read)`] : []),
        ...walkNotes(walked)
      ]
      const shown = out.slice(0, max_results)
      const body = shown.length === 0 ? `No matches for ${JSON.stringify(pattern)} in ${where}.` : shown.join("\n")
      return [body, ...notes].join("\n")
    })
})
