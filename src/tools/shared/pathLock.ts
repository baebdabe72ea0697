/**
 * A lock per resolved path, shared by every tool in the process: two edits of one file run one
 * after the other, so neither reads the file before the other's write has landed and neither
 * edit is lost. The file system is one per process, so the table is too (not one per
 * `ToolSystem`).
 *
 * Each key holds a one-permit `Semaphore` and a count of the fibers using or waiting for it;
 * the entry is dropped when the count returns to zero, so the table holds only paths in use.
 * Several paths (a move's source and destination) are taken in sorted order, so two calls
 * over the same pair cannot deadlock.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"

interface Entry {
  readonly semaphore: Semaphore.Semaphore
  /** Fibers holding or waiting for the permit. */
  users: number
}

const entries = new Map<string, Entry>()

const enter = (key: string): Entry => {
  let entry = entries.get(key)
  if (entry === undefined) {
    entry = { semaphore: Semaphore.makeUnsafe(1), users: 0 }
    entries.set(key, entry)
  }
  entry.users++
  return entry
}

const leave = (key: string, entry: Entry): void => {
  entry.users--
  // every enter has its one leave, and an entry is dropped only at zero users: at zero, it is the key's entry
  if (entry.users === 0) entries.delete(key)
}

/** How many paths have a lock entry now (for tests: the table does not grow). */
export const lockedPathCount = (): number => entries.size

/**
 * Runs `self` holding the lock of every path in `paths` (duplicates taken once). Interruption
 * while waiting or running releases what was taken.
 */
export const withPathLocks =
  (paths: ReadonlyArray<string>) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const keys = [...new Set(paths)].sort()
    return Effect.acquireUseRelease(
      Effect.sync(() => keys.map((key) => [key, enter(key)] as const)),
      // the first key is taken first: the outermost permit
      (held) =>
        held.reduceRight<Effect.Effect<A, E, R>>((inner, [, entry]) => entry.semaphore.withPermits(1)(inner), self),
      (held) => Effect.sync(() => held.forEach(([key, entry]) => leave(key, entry)))
    )
  }

/** `withPathLocks` for one path. */
export const withPathLock = (path: string) => withPathLocks([path])
