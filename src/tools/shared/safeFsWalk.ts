/**
 * A bounded walk of a directory tree, bound to what it opens (see `safeFs.ts`): every
 * directory is opened without following a link and checked to be at its expected real path
 * before it is listed, so a walk never reads above its start, whatever a pattern or a swap
 * does. Symbolic links are not followed unless the caller says where one leads.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Option from "effect/Option"
import type * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { type EntryKind, listDirectory, openDirectory, statEntry } from "./safeFs.js"
import type { SafeFsError } from "./safeFsError.js"

/** One entry met by a walk. */
export interface WalkEntry {
  /** Its path relative to the start, with `/` separators (links keep their own name). */
  readonly rel: string
  readonly name: string
  readonly kind: EntryKind
  /** The real path of the directory that holds it. */
  readonly dir: string
}

/** What the walk does at each step. */
export interface WalkOptions {
  /** Whether to list the directory at `rel` (`""` is the start, always listed). */
  readonly descend: (rel: string) => boolean
  /**
   * For a symbolic link: the real directory to walk under its name, if it is to be followed
   * (the caller resolves it and checks it stays inside the workspace). `None`: not followed.
   */
  readonly follow: (entry: WalkEntry) => Effect.Effect<Option.Option<string>>
  /** Most entries visited; past that the walk stops and says so. */
  readonly maxEntries: number
}

/** What a walk found. */
export interface WalkResult {
  readonly entries: ReadonlyArray<WalkEntry>
  /** The walk stopped at `maxEntries`. */
  readonly truncated: boolean
  /** Directories below the start that could not be listed (changed meanwhile, no permission). */
  readonly skipped: number
}

/**
 * Walks the tree under `start` (a resolved, real directory) breadth first. Failing to open the
 * start is the error; a directory below it that fails is counted in `skipped`.
 */
export const walk = (start: string, options: WalkOptions): Effect.Effect<WalkResult, SafeFsError> =>
  Effect.gen(function*() {
    const entries: Array<WalkEntry> = []
    const queue: Array<{ readonly real: string; readonly rel: string }> = [{ real: start, rel: "" }]
    let skipped = 0
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { real, rel } = next
      const listed = yield* Effect.result(Effect.scoped(Effect.flatMap(openDirectory(real), listDirectory)))
      if (Result.isFailure(listed)) {
        if (rel === "") return yield* listed.failure
        // gone, or a followed link to a file: nothing to list; anything else is counted
        if (listed.failure.reason !== "NotFound" && listed.failure.reason !== "NotDirectory") skipped++
        continue
      }
      for (const { kind, name } of listed.success) {
        if (entries.length >= options.maxEntries) return { entries, truncated: true, skipped }
        const entry: WalkEntry = { rel: rel === "" ? name : `${rel}/${name}`, name, kind, dir: real }
        entries.push(entry)
        if (kind === "directory" && options.descend(entry.rel)) {
          queue.push({ real: NodePath.join(real, name), rel: entry.rel })
        } else if (kind === "symlink" && options.descend(entry.rel)) {
          const target = yield* options.follow(entry)
          if (Option.isSome(target)) queue.push({ real: target.value, rel: entry.rel })
        }
      }
    }
    return { entries, truncated: false, skipped }
  })

/**
 * `lstat` of some entries of one directory (a resolved, real path), through its checked
 * descriptor; each name maps to its stats or the error for it.
 */
export const statEntries = (
  dir: string,
  names: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<string, Result.Result<NodeFs.BigIntStats, SafeFsError>>> =>
  Effect.scoped(Effect.gen(function*() {
    const opened = yield* Effect.result(openDirectory(dir))
    const results = new Map<string, Result.Result<NodeFs.BigIntStats, SafeFsError>>()
    for (const name of names) {
      results.set(name, Result.isFailure(opened) ? Result.fail(opened.failure) : yield* Effect.result(statEntry(opened.success, name)))
    }
    return results
  }))
