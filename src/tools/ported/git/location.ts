/**
 * Where a repository lies, checked before a git tool runs anything that reads objects or writes:
 * its git directory, its common directory (a worktree's shared one), its object directory and
 * every alternate object directory must resolve inside the workspace. A `.git` file
 * (`gitdir: <elsewhere>`), a worktree's `commondir`, a symbolic link for `objects` or an
 * `objects/info/alternates` entry would otherwise let `git_show`/`git_log` read another
 * repository and `git_add`/`git_commit` write into it.
 *
 * The directories are the ones git itself resolves (`rev-parse --path-format=absolute
 * --git-dir --git-common-dir --show-toplevel`, run by `repository.ts` in the git tools' own
 * environment); each is then resolved through the `Workspace` (real path, symbolic links
 * followed). Alternates are read as git reads them: one entry a line, `#` lines and empty lines
 * skipped, a C-quoted entry unquoted, a relative entry taken against the real path of the object
 * directory whose `info/alternates` names it, and an alternate's own alternates followed (git
 * goes 5 deep; deeper ones are refused rather than guessed about). `GIT_ALTERNATE_OBJECT_DIRECTORIES`
 * never reaches git (`gitCommand.ts` drops the host's `GIT_*` variables).
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as NodePath from "node:path"
import { ToolError } from "../../../domain/errors.js"
import type { WorkspaceService } from "../../../services/Workspace.js"
import { openFile } from "../../shared/safeFs.js"
import { readText } from "../../shared/safeFsRead.js"

/** The `rev-parse` options of the three directories, in `Location`'s order. */
export const LOCATION_OPTIONS: ReadonlyArray<string> = ["--git-dir", "--git-common-dir", "--show-toplevel"]

/** The `rev-parse` arguments whose output `parseLocation` reads. */
export const LOCATION_ARGS: ReadonlyArray<string> = ["rev-parse", "--path-format=absolute", ...LOCATION_OPTIONS]

/** How deep git follows alternates of alternates (its own limit). */
export const MAX_ALTERNATES_DEPTH = 5

/** The most object directories (the repository's and its alternates) checked before refusing. */
export const MAX_OBJECT_DIRECTORIES = 64

/** The largest alternates file read. */
const ALTERNATES_MAX_BYTES = 64 * 1024

/** The directories git resolved for a repository, as it printed them (absolute). */
export interface Location {
  readonly gitDir: string
  readonly commonDir: string
  readonly topLevel: string
}

/** The three directories, in `LOCATION_OPTIONS`' order; `None` unless there are three, none empty. */
export const locationOf = (paths: ReadonlyArray<string>): Option.Option<Location> => {
  const [gitDir, commonDir, topLevel] = paths
  return paths.length === 3 && gitDir && commonDir && topLevel
    ? Option.some({ gitDir, commonDir, topLevel })
    : Option.none()
}

/**
 * The three lines of `LOCATION_ARGS`' output; `None` when they are not three: a path holding a
 * newline makes the lines ambiguous (`repository.ts` then asks for one directory at a time).
 */
export const parseLocation = (stdout: string): Option.Option<Location> =>
  locationOf(stdout.replace(/\n$/, "").split("\n"))

const C_ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92, "\"": 34 }

/**
 * The C-quoted name that starts at `from` (`"a\"b\303\251"`, as git's `unquote_c_style` reads
 * one: up to the first unescaped quote, newlines included) and the index just past its closing
 * quote; `None` when it is not well quoted (no closing quote, an unknown escape).
 */
export const unquoteCAt = (text: string, from: number): Option.Option<readonly [name: string, end: number]> => {
  if (text[from] !== "\"") return Option.none()
  const bytes: Array<number> = []
  for (let i = from + 1; i < text.length; i++) {
    const char = text[i]!
    if (char === "\"") return Option.some([Buffer.from(bytes).toString("utf8"), i + 1])
    if (char !== "\\") {
      bytes.push(...Buffer.from(char, "utf8"))
      continue
    }
    const next = text[i + 1] ?? ""
    const octal = /^[0-3][0-7]{2}/.exec(text.slice(i + 1, i + 4))
    if (octal !== null) {
      bytes.push(Number.parseInt(octal[0], 8))
      i += 3
    } else if (next in C_ESCAPES) {
      bytes.push(C_ESCAPES[next]!)
      i += 1
    } else {
      return Option.none()
    }
  }
  return Option.none()
}

/**
 * The entries of an alternates file, as git's `parse_alt_odb_entry` reads them: an entry that
 * starts with a quote and is well quoted is the unquoted name, and the next entry starts one
 * character after its closing quote (`"/x/objects"y` names `/x/objects`); any other entry runs
 * to the end of its line, as written; a line starting with `#` is a comment.
 */
export const alternatesEntries = (text: string): ReadonlyArray<string> => {
  const entries: Array<string> = []
  const lineEnd = (from: number) => {
    const at = text.indexOf("\n", from)
    return at === -1 ? text.length : at
  }
  let at = 0
  while (at < text.length) {
    const quoted = text[at] === "#" ? Option.none() : unquoteCAt(text, at)
    const [entry, end] = Option.isSome(quoted)
      ? quoted.value
      : [text[at] === "#" ? "" : text.slice(at, lineEnd(at)), lineEnd(at)]
    if (entry !== "") entries.push(entry)
    // git steps over the one character after an entry: the newline, or whatever follows a closing quote
    at = end + 1
  }
  return entries
}

/**
 * Fails with a `ToolError` naming what lies outside the workspace, when anything of `location`
 * does; succeeds when the git directory, the common directory, their object directories and
 * all alternates resolve inside it.
 */
export const confineLocation = (
  tool: string,
  workspace: WorkspaceService,
  root: string,
  location: Location
): Effect.Effect<void, ToolError> =>
  Effect.gen(function*() {
    const refuse = (what: string, path: string) =>
      Effect.fail(
        new ToolError({
          tool,
          message: `The repository's ${what} is ${path}, outside the workspace ${root}; the git tools use only a ` +
            "repository that lies wholly inside the workspace (another repository is neither read nor written)"
        })
      )
    const inside = (what: string, path: string) =>
      Effect.flatMap(workspace.tryResolve(path), Option.match({ onNone: () => refuse(what, path), onSome: Effect.succeed }))

    const gitDir = yield* inside("git directory", location.gitDir)
    const commonDir = yield* inside("common directory", location.commonDir)

    // object directories to check, with how deep in alternates each was found
    const pending: Array<readonly [string, number]> = []
    const seen = new Set<string>()
    for (const dir of new Set([gitDir, commonDir])) {
      pending.push([yield* inside("object directory", NodePath.join(dir, "objects")), 0])
    }
    while (pending.length > 0) {
      const [objects, depth] = pending.shift()!
      if (seen.has(objects)) continue
      seen.add(objects)
      if (seen.size > MAX_OBJECT_DIRECTORIES) {
        return yield* Effect.fail(
          new ToolError({ tool, message: `The repository's alternates name over ${MAX_OBJECT_DIRECTORIES} object directories; the git tools do not use it` })
        )
      }
      const file = yield* inside("alternates file", NodePath.join(objects, "info", "alternates"))
      const entries = yield* readAlternates(tool, file)
      if (entries.length > 0 && depth >= MAX_ALTERNATES_DEPTH) {
        return yield* Effect.fail(
          new ToolError({ tool, message: `The repository's alternates nest deeper than ${MAX_ALTERNATES_DEPTH} (${file}); the git tools do not use it` })
        )
      }
      for (const entry of entries) {
        // as git does: a relative entry is taken against the real object directory, then cleaned lexically
        pending.push([yield* inside(`alternates (in ${file}) entry`, NodePath.resolve(objects, entry)), depth + 1])
      }
    }
  })

/** The entries of the alternates file at `file` (a real path); none when there is no such file. */
const readAlternates = (tool: string, file: string): Effect.Effect<ReadonlyArray<string>, ToolError> =>
  Effect.scoped(Effect.flatMap(openFile(file), (open) => readText(open, ALTERNATES_MAX_BYTES))).pipe(
    Effect.map(alternatesEntries),
    Effect.catch((error) =>
      error._tag === "SafeFsError" && error.reason === "NotFound"
        ? Effect.succeed([])
        : Effect.fail(
          new ToolError({
            tool,
            message: `The repository's alternates cannot be checked (${error.message}); the git tools do not use it`,
            cause: error
          })
        )
    )
  )
