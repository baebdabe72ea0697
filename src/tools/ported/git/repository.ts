/**
 * The repository a git tool works on: the one whose top level is the workspace root and whose
 * git directory, common directory and object stores all lie inside the workspace
 * (`location.ts`), checked before any other git command runs, with the repository's own filter
 * drivers neutralized.
 *
 * A filter driver (`filter.<name>.clean`, `smudge`, `process`) is a program a `.gitattributes`
 * in the tree applies to matching files when git reads or writes the work tree: `status`, `diff`,
 * `add`, `commit`, `switch` and even `show` can run it, and no command-line switch turns filters
 * off. So the drivers the repository's own configuration defines (scope `local` or `worktree`,
 * files it includes among them) are listed first (`git config --get-regexp` only reads files)
 * and emptied for the real command through `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, which take
 * a driver name as is (a name may hold `=` or `.`), with `required=false` so git does not fail
 * on the missing filter. Drivers from the user's global configuration (Git LFS, typically) are
 * the user's own and keep working; a repository that redefines one loses it in these tools.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { PlatformError } from "effect/PlatformError"
import { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import { ToolError } from "../../../domain/errors.js"
import { Workspace } from "../../../services/Workspace.js"
import { GIT_MAX_OUTPUT_BYTES, gitEnvironment, type GitOutput, runGit } from "./gitCommand.js"
import { confineLocation, type Location, LOCATION_ARGS, LOCATION_OPTIONS, locationOf, parseLocation } from "./location.js"

/** The most filter drivers a repository may define before the git tools refuse it. */
export const MAX_FILTER_DRIVERS = 100

/** A repository ready for git commands. */
export interface Repository {
  /** The workspace root, the repository's top level. */
  readonly root: string
  /** Runs a git subcommand (see `runGit`); a non-zero exit is in the result. */
  readonly run: (args: ReadonlyArray<string>, maxBytes?: number) => Effect.Effect<GitOutput, ToolError>
}

/** A failure to start or read git, as the tool's error. */
const startFailure = (tool: string) => (error: PlatformError): ToolError =>
  new ToolError({
    tool,
    message: error.reason._tag === "NotFound"
      ? "git is not available: no `git` executable on PATH"
      : `could not run git: ${error.message}`,
    cause: error
  })

/** git's own message, trimmed to its first lines. */
export const gitMessage = (output: GitOutput): string => {
  const text = (output.stderr.trim() === "" ? output.stdout : output.stderr).trim()
  const lines = text.split("\n")
  return lines.length > 12 ? `${lines.slice(0, 12).join("\n")}\n...` : text
}

/**
 * The filter driver names that `git config -z --show-scope --get-regexp '^filter\.'` printed
 * for scopes other than the user's (`global`) and the system's. Each entry is
 * `scope NUL key [LF value] NUL`; a key is `filter.<name>.<variable>`.
 */
export const repositoryFilterDrivers = (listing: string): ReadonlyArray<string> => {
  const fields = listing.split("\u0000")
  const names = new Set<string>()
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i]
    const entry = fields[i + 1]
    if (scope === "global" || scope === "system" || entry === undefined) continue
    const newline = entry.indexOf("\n")
    const key = newline === -1 ? entry : entry.slice(0, newline)
    const lastDot = key.lastIndexOf(".")
    if (key.startsWith("filter.") && lastDot > "filter.".length) names.add(key.slice("filter.".length, lastDot))
  }
  return Array.from(names)
}

/** `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n` that empty the given filter drivers. */
const neutralizing = (drivers: ReadonlyArray<string>): Record<string, string> => {
  const pairs = drivers.flatMap((name): ReadonlyArray<readonly [string, string]> => [
    [`filter.${name}.clean`, ""],
    [`filter.${name}.smudge`, ""],
    [`filter.${name}.process`, ""],
    [`filter.${name}.required`, "false"]
  ])
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) }
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key
    env[`GIT_CONFIG_VALUE_${i}`] = value
  })
  return env
}

/**
 * Checks that the workspace root is the top level of a git work tree whose repository lies
 * inside the workspace (`confineLocation`) and returns a runner for it. `readOnly` runs take no
 * optional locks (`status` leaves the index file alone). Fails with a clear `ToolError` outside
 * a repository.
 */
export const openRepository = (
  tool: string,
  readOnly: boolean
): Effect.Effect<Repository, ToolError, Workspace | ChildProcessSpawner> =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    const root = yield* workspace.root
    const spawner = yield* ChildProcessSpawner
    const start = (args: ReadonlyArray<string>, env: Record<string, string>, maxBytes?: number) =>
      runGit(root, args, env, maxBytes).pipe(
        Effect.provideService(ChildProcessSpawner, spawner),
        Effect.mapError(startFailure(tool))
      )
    const fail = (message: string) => Effect.fail(new ToolError({ tool, message }))

    const plain = gitEnvironment(root, true)
    const [top, config] = yield* Effect.all([
      start(LOCATION_ARGS, plain),
      start(["config", "-z", "--show-scope", "--get-regexp", "^filter\\."], plain)
    ], { concurrency: 2 })
    if (top.exitCode !== 0) {
      return yield* /not a git repository/i.test(top.stderr)
        ? fail(
          "The workspace is not a git repository: the git tools work on a repository whose top level is " +
            "the workspace root (one above it is not used). `git init` makes one."
        )
        : fail(`git cannot use this repository: ${gitMessage(top)}`)
    }
    // a path holding a newline makes the lines ambiguous: then one run per directory, each printing one path
    const oneByOne = Effect.forEach(LOCATION_OPTIONS, (option) =>
      Effect.flatMap(start(["rev-parse", "--path-format=absolute", option], plain), (output) =>
        output.exitCode === 0
          ? Effect.succeed(output.stdout.replace(/\n$/, ""))
          : fail(`git cannot use this repository: ${gitMessage(output)}`)))
    const location = yield* Option.match(parseLocation(top.stdout), {
      onSome: (found) => Effect.succeed<Location>(found),
      onNone: () =>
        Effect.flatMap(oneByOne, (paths) =>
          Option.match(locationOf(paths), {
            onSome: Effect.succeed,
            onNone: () => fail("git did not say where this repository lies")
          }))
    })
    // before the top level: a `.git` file naming another repository has the workspace as its top level
    yield* confineLocation(tool, workspace, root, location)
    const topLevel = location.topLevel
    if (topLevel !== root) {
      return yield* fail(
        `The repository's work tree is ${topLevel}, not the workspace root (its core.worktree points elsewhere); ` +
          "the git tools work only on the workspace"
      )
    }
    // first: a cut run has no exit status, and its output is the repository's own configuration
    if (config.cut) {
      return yield* fail(
        `the repository's filter driver configuration is too large to check (over ${GIT_MAX_OUTPUT_BYTES} bytes); ` +
          "the git tools do not use such a repository"
      )
    }
    // exit 1: no filter key at all
    if (config.exitCode !== 0 && config.exitCode !== 1) {
      return yield* fail(`git cannot read this repository's configuration: ${gitMessage(config)}`)
    }
    const drivers = repositoryFilterDrivers(config.stdout)
    if (drivers.length > MAX_FILTER_DRIVERS) {
      return yield* fail(`the repository's configuration defines ${drivers.length} filter drivers (at most ${MAX_FILTER_DRIVERS})`)
    }
    const env = gitEnvironment(root, readOnly, drivers.length === 0 ? {} : neutralizing(drivers))
    return { root, run: (args, maxBytes) => start(args, env, maxBytes) }
  })
