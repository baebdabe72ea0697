/**
 * How the git tools run git: `effect/process`'s `ChildProcess` with an argv (never a shell), in the
 * workspace root, with a configuration and an environment that leave a repository no way to
 * run a program of its choosing.
 *
 * A cloned repository's `.git/config` (or a file it includes) is attacker-controlled, and several
 * of its keys name programs git runs on its own: `core.fsmonitor` (on every index refresh:
 * status, diff, add, commit), `core.pager`/`pager.*`, `diff.external` and `diff.<driver>.command`,
 * `diff.<driver>.textconv` and `filter.<driver>.clean/smudge/process` (chosen per file by an
 * in-tree `.gitattributes`), hooks (`pre-commit`, `post-checkout`, `post-index-change`,
 * `reference-transaction`, ...), `gpg.program` (through `commit.gpgSign` or `log.showSignature`).
 * Every git run here therefore gets:
 * - `--no-pager` and the `-c` overrides of `SAFE_CONFIG` (command-line config wins over every
 *   file): no fsmonitor, hooks read from `/dev/null`, no signing or signature checks, no
 *   transport (`protocol.allow=never`), no submodule recursion, no automatic gc, no colour;
 * - `--no-ext-diff --no-textconv` on the commands that print diffs (`DIFF_SAFETY`);
 * - the repository's own filter drivers emptied (`repository.ts` lists them);
 * - an environment without the host's `GIT_*` variables (they could point git elsewhere) or
 *   secrets, with `GIT_CONFIG_NOSYSTEM`, `GIT_TERMINAL_PROMPT=0`, no editor or pager, `LC_ALL=C`,
 *   and `GIT_CEILING_DIRECTORIES` at the root's parent, so only a repository at the root is found.
 *
 * Output is read as a stream and kept up to a cap; past it the reading stops and the process is
 * ended (the scope closes), so a huge diff costs no more than the cap.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type { PlatformError } from "effect/PlatformError"
import * as ChildProcess from "effect/process/ChildProcess"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import * as NodePath from "node:path"
import { withoutSecrets } from "../../shared/secretEnv.js"
import { decodeUtf8, decodeUtf8Prefix } from "../../shared/text.js"

/** Bytes of stdout a git tool shows. */
export const GIT_MAX_OUTPUT_BYTES = 64 * 1024

/** Bytes of stderr kept (git's messages are short). */
const GIT_MAX_ERROR_BYTES = 8 * 1024

/** Configuration every git run gets on its command line, above every configuration file. */
export const SAFE_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["core.quotePath", "false"],
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  ["log.showSignature", "false"],
  ["protocol.allow", "never"],
  ["submodule.recurse", "false"],
  ["diff.submodule", "short"],
  ["status.submoduleSummary", "false"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
  ["safe.bareRepository", "explicit"],
  ["user.useConfigOnly", "true"],
  ["i18n.logOutputEncoding", "UTF-8"],
  ["color.ui", "false"],
  ["color.diff", "false"],
  ["color.status", "false"],
  ["color.branch", "false"]
]

/** Options of the commands that print diffs (`diff`, `show`, `log`): no external diff, no textconv. */
export const DIFF_SAFETY: ReadonlyArray<string> = ["--no-ext-diff", "--no-textconv", "--no-color"]

/** The host variables a git run keeps among `GIT_*`: the identity (the host's own choice). */
const KEPT_GIT_VARIABLES: ReadonlySet<string> = new Set([
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_COMMITTER_DATE",
  "GIT_CONFIG_GLOBAL"
])

/**
 * The environment of a git run in `root`: the host's without secrets and without `GIT_*` (but
 * the identity), plus the settings of the module doc and `extra` (`GIT_CONFIG_KEY_n`, ...).
 */
export const gitEnvironment = (
  root: string,
  readOnly: boolean,
  extra: Readonly<Record<string, string>> = {}
): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(withoutSecrets(process.env))) {
    if (!name.toUpperCase().startsWith("GIT_") || KEPT_GIT_VARIABLES.has(name)) env[name] = value
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PROTOCOL_FROM_USER: "0",
    GIT_EDITOR: "true",
    GIT_SEQUENCE_EDITOR: "true",
    GIT_PAGER: "cat",
    PAGER: "cat",
    LC_ALL: "C",
    LANGUAGE: "C",
    // discovery stops at the root: a repository above the workspace is not used
    GIT_CEILING_DIRECTORIES: NodePath.dirname(root),
    // a read-only tool does not even refresh the index file
    ...(readOnly ? { GIT_OPTIONAL_LOCKS: "0" } : {}),
    ...extra
  }
}

/** The global options before every git subcommand. */
export const globalArgs: ReadonlyArray<string> = [
  "--no-pager",
  // paths are paths: `:(glob)*` or `*` in a file name is not pathspec magic
  "--literal-pathspecs",
  ...SAFE_CONFIG.flatMap(([key, value]) => ["-c", `${key}=${value}`])
]

/** What a git run printed. */
export interface GitOutput {
  /** The exit status; `undefined` when the output was cut and git was ended. */
  readonly exitCode: number | undefined
  readonly stdout: string
  /** stdout went past the cap: `stdout` is its start. */
  readonly cut: boolean
  readonly stderr: string
}

/** Keeps up to `maxBytes` of a stream, then stops reading it. */
const capture = <E>(stream: Stream.Stream<Uint8Array, E>, maxBytes: number) =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    return Stream.runForEachWhile(stream, (chunk) =>
      Effect.sync(() => {
        chunks.push(chunk)
        size += chunk.length
        return size <= maxBytes
      })).pipe(Effect.map(() => {
        const bytes = Buffer.concat(chunks)
        const cut = size > maxBytes
        return { text: cut ? decodeUtf8Prefix(bytes, maxBytes) : decodeUtf8(bytes), cut }
      }))
  })

/**
 * Runs `git <globalArgs> <args>` in `root` with `env` (stdin `/dev/null`, empty). Fails only when git cannot
 * be started or read; a non-zero exit is in the result.
 */
export const runGit = (
  root: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  maxBytes: number = GIT_MAX_OUTPUT_BYTES
): Effect.Effect<GitOutput, PlatformError, ChildProcessSpawner> =>
  Effect.scoped(
    Effect.gen(function*() {
      // no `shell`: the argv goes to git as is; detached (the default off Windows): git leads a
      // process group of its own, which the scope's close signals
      const command = ChildProcess.make("git", [...globalArgs, ...args], {
        cwd: root,
        env,
        extendEnv: false,
        stdin: "ignore"
      })
      const git = yield* command
      const stderr = yield* Effect.forkChild(capture(git.stderr, GIT_MAX_ERROR_BYTES))
      const stdout = yield* capture(git.stdout, maxBytes)
      if (stdout.cut) {
        // enough read: leaving the scope ends git (its group gets SIGTERM)
        yield* Fiber.interrupt(stderr)
        return { exitCode: undefined, stdout: stdout.text, cut: true, stderr: "" }
      }
      const errors = yield* Fiber.join(stderr)
      const exitCode = yield* git.exitCode
      return { exitCode, stdout: stdout.text, cut: false, stderr: errors.text }
    })
  )
