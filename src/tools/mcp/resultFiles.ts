/**
 * The files of `.mcp-results/` (the whole text of a capped result, `resultContent.ts`): how one
 * is written, and the bound on the folder.
 *
 * - A result file holds whatever a tool answered, maybe secrets: it is written `0600` (whatever
 *   the umask), and the folder is made `0700` when the server creates it (a folder that is
 *   already there keeps its mode: it is not ours to change).
 * - The folder keeps at most `maxFiles` result files and `maxBytes` bytes of them (default 100
 *   files, 256 MiB): after each write the oldest are deleted, in a fiber of their own (the call
 *   does not wait), one pruning at a time per folder (a write meanwhile has it run once more).
 *   A result larger than `maxBytes` alone is not kept at all.
 * - Only our files are deleted: a name of ours (`<time>-<tool>-<12 hex>.txt`), a regular file
 *   (`lstat`: a symbolic link is never followed, nor deleted), of this user, mode `0600`. A file
 *   someone else put there, a link, a folder, a file of an older version (written with the
 *   default mode) is left alone and not counted. The folder is opened through its checked
 *   descriptor (a link planted at `.mcp-results` is not followed), and an entry is unlinked only
 *   while it is still the inode that was looked at.
 * - Everything is asynchronous file-system work; a failure is logged and the next write tries
 *   again. The bound holds once the pruning after a write has run: writes at once may pass it
 *   for that long.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs/promises"
import * as NodePath from "node:path"
import { writeAtomicWith } from "../shared/atomicWrite.js"
import { listDirectory, openDirectory, statEntry } from "../shared/safeFs.js"
import type { SafeFsError } from "../shared/safeFsError.js"
import * as Node from "../shared/safeFsNode.js"

/**
 * The bound on the folder of capped results (`McpServeOptions.resultFiles`).
 *
 * @since 1.0.0
 * @category models
 */
export interface McpResultFilesOptions {
  /** Most result files kept; the oldest go first. Default 100. */
  readonly maxFiles?: number | undefined
  /** Most bytes of result files kept; the oldest go first. Default 256 MiB. */
  readonly maxBytes?: number | undefined
}

/**
 * The default most result files kept in `.mcp-results/`.
 *
 * @since 1.0.0
 * @category constants
 */
export const DEFAULT_MAX_RESULT_FILES = 100

/**
 * The default most bytes of result files kept in `.mcp-results/`.
 *
 * @since 1.0.0
 * @category constants
 */
export const DEFAULT_MAX_RESULT_BYTES = 256 * 1024 * 1024

/** The bound as given: anything not a positive number is the default. */
const boundOf = (value: number | undefined, fallback: number): number =>
  value === undefined || Number.isNaN(value) || value < 1 ? fallback : Math.floor(value)

/**
 * The bounds, defaults filled in.
 *
 * @internal
 */
export const resultBounds = (options: McpResultFilesOptions | undefined) => ({
  maxFiles: boundOf(options?.maxFiles, DEFAULT_MAX_RESULT_FILES),
  maxBytes: boundOf(options?.maxBytes, DEFAULT_MAX_RESULT_BYTES)
})

/**
 * A name `resultFileName` (in `resultContent.ts`) makes: `2026-12-07T05-18-00-123Z-tool-0a1b2c3d4e5f.txt`.
 *
 * @internal
 */
export const RESULT_FILE_NAME = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-[A-Za-z0-9_-]{1,64}-[0-9a-f]{12}\.txt$/

/** Makes `dir` `0700` when it is missing (an existing one, or a link there, is left as it is). */
const makeFolder = (dir: string): Effect.Effect<void> =>
  Effect.promise(() => fs.mkdir(dir, { mode: 0o700 }).then(() => undefined, () => undefined))

/**
 * Writes `text` to `absolute` (in the folder `RESULTS_DIR` of `root`) atomically, mode `0600`,
 * the folder made `0700` when missing.
 *
 * @internal
 */
export const writeResultFile = (root: string, absolute: string, text: string): Effect.Effect<void, SafeFsError> =>
  Effect.andThen(
    makeFolder(NodePath.dirname(absolute)),
    writeAtomicWith(root, absolute, (fd) => {
      const bytes = Buffer.from(text, "utf8")
      // before any byte is written: the umask could have left it readable by others
      return Effect.as(Effect.andThen(Node.fchmod(fd, absolute, 0o600), Node.writeAll(fd, absolute, bytes, 0)), bytes.length)
    })
  )

/** A result file of ours, as `lstat` saw it. */
interface Ours {
  readonly name: string
  readonly size: number
  readonly dev: bigint
  readonly ino: bigint
}

/** Deletes the oldest of our files in `dir` past the bounds. */
const pruneOnce = (dir: string, bounds: ReturnType<typeof resultBounds>): Effect.Effect<void, SafeFsError> =>
  Effect.scoped(Effect.gen(function*() {
    const opened = yield* openDirectory(dir).pipe(
      Effect.map(Option.some),
      Effect.catchIf((error) => error.reason === "NotFound", () => Effect.succeed(Option.none()))
    )
    if (Option.isNone(opened)) return
    const folder = opened.value
    const uid = process.getuid?.()
    const named = (yield* listDirectory(folder)).filter((entry) => entry.kind === "file" && RESULT_FILE_NAME.test(entry.name))
    const ours: Array<Ours> = []
    for (const entry of named) {
      const stats = yield* Effect.option(statEntry(folder, entry.name))
      if (Option.isNone(stats)) continue
      const s = stats.value
      if (!s.isFile() || (Number(s.mode) & 0o777) !== 0o600 || (uid !== undefined && Number(s.uid) !== uid)) continue
      ours.push({ name: entry.name, size: Number(s.size), dev: s.dev, ino: s.ino })
    }
    // newest first (the name starts with the time); everything past the bounds goes
    ours.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0))
    let files = 0
    let bytes = 0
    for (const file of ours) {
      files++
      bytes += file.size
      if (files <= bounds.maxFiles && bytes <= bounds.maxBytes) continue
      const target = Node.childOf(folder.fd, folder.path, file.name)
      const path = NodePath.join(folder.path, file.name)
      const now = yield* Effect.option(Node.lstat(target, path))
      // replaced since it was looked at (by a link, another file): not ours to delete
      if (Option.isNone(now) || now.value.dev !== file.dev || now.value.ino !== file.ino) continue
      yield* Node.unlink(target, path).pipe(Effect.catchIf((error) => error.reason === "NotFound", () => Effect.void))
    }
  }))

/** A pruning in progress: a write meanwhile asks for one more run (with the latest bounds). */
interface Pruning {
  again: boolean
  bounds: ReturnType<typeof resultBounds>
}

/** The prunings in progress, by folder (one at a time per folder, across the process's servers). */
const pruning = new Map<string, Pruning>()

/**
 * Has the folder `dir` pruned to `bounds` in a fiber of its own (see the module's note); returns
 * at once.
 *
 * @internal
 */
export const schedulePrune = (dir: string, bounds: ReturnType<typeof resultBounds>): Effect.Effect<void> =>
  Effect.suspend(() => {
    const running = pruning.get(dir)
    if (running !== undefined) {
      running.again = true
      running.bounds = bounds
      return Effect.void
    }
    const state: Pruning = { again: true, bounds }
    pruning.set(dir, state)
    const loop: Effect.Effect<void> = Effect.suspend(() => {
      // the check and the removal in one step: a request made after it starts a pruning of its own
      if (!state.again) {
        pruning.delete(dir)
        return Effect.void
      }
      state.again = false
      return Effect.andThen(
        pruneOnce(dir, state.bounds).pipe(
          Effect.catch((error) => Effect.logWarning(`Pruning ${dir} of old MCP results failed: ${error.message}`)),
          Effect.catchDefect((defect) => Effect.logWarning(`Pruning ${dir} of old MCP results failed unexpectedly`, defect))
        ),
        loop
      )
    })
    const cleared = Effect.sync(() => {
      if (pruning.get(dir) === state) pruning.delete(dir)
    })
    return Effect.asVoid(Effect.forkDetach(Effect.onExit(loop, () => cleared)))
  })
