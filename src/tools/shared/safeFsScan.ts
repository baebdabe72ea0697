/**
 * A streaming, bound walk of a directory tree for the tools that search it (`search_files`,
 * `find_files`, `directory_tree`). Unlike `safeFsWalk.ts`'s `walk`, which gathers every entry
 * before it returns, `scan` hands each directory to a visitor while its descriptor is still
 * open (so the visitor can open the directory's files through it, `openChildFileSync`), and
 * stops as soon as the visitor says so (`max_results` reached).
 *
 * - Breadth first; entries in name order, so the output is the same from run to run.
 * - Every directory is opened without following a link and checked to be at its expected real
 *   path before it is listed (`safeFsSync.ts`): a walk never reads above its start, whatever
 *   is swapped meanwhile.
 * - Symbolic links are resolved by the caller's `resolveLink` (the workspace resolver): one
 *   leading out of the workspace (or nowhere) is reported, never opened. One leading inside is
 *   followed once: not when its target lies in a tree this walk already covers (the start, or
 *   a link target followed before), so every real directory is listed at most once, and a link
 *   cycle ends at its first repeat.
 * - `skipNames` (`.git`, `node_modules`) are reported and not listed; neither is a directory
 *   at `maxDepth`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Option from "effect/Option"
import type * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { isInside } from "../../layers/Workspace.js"
import type { OpenDirectory } from "./safeFs.js"
import { SafeFsError } from "./safeFsError.js"
import { fromSystemError, stat } from "./safeFsNode.js"
import { closeSync, listDirectorySync, openDirectorySync } from "./safeFsSync.js"

/** A directory being visited: open, checked, with where the walk met it. */
export interface ScanDirectory extends OpenDirectory {
  /** Its path relative to the start, `/`-separated, with links under their own names (`""`: the start). */
  readonly rel: string
  /** 0 for the start. */
  readonly depth: number
}

/** Why a directory's contents are not walked: it is, or it is met elsewhere, or it is too deep. */
export type Expansion = "listed" | "depth" | "skipped" | "repeat"

/** One entry of a visited directory, as the walk classified it. */
export type ScanEntry =
  /** A regular file; `target` (a real path) for a link to a file inside the workspace. */
  | {
    readonly _tag: "File"
    readonly name: string
    readonly target?: string | undefined
    /** A link whose target the walk meets elsewhere: not to be read again. */
    readonly repeat: boolean
  }
  /** A directory; `target` for a link to a directory inside the workspace. */
  | { readonly _tag: "Directory"; readonly name: string; readonly target?: string | undefined; readonly expanded: Expansion }
  /** A symbolic link leading out of the workspace, or to nothing (dangling, a loop): never opened. */
  | { readonly _tag: "LinkOut"; readonly name: string }
  /** A FIFO, socket or device. */
  | { readonly _tag: "Other"; readonly name: string }

/** How the walk goes. */
export interface ScanOptions<E, R> {
  /** Directories at this depth are not listed (1: only the start's entries). */
  readonly maxDepth: number
  /** Names of directories never listed. */
  readonly skipNames: ReadonlySet<string>
  /** The real path a link leads to when it stays inside the workspace (`Workspace.tryResolve`). */
  readonly resolveLink: (path: string) => Effect.Effect<Option.Option<string>>
  /** Called for each directory while it is open; `false` stops the walk. */
  readonly visit: (dir: ScanDirectory, entries: ReadonlyArray<ScanEntry>) => Effect.Effect<boolean, E, R>
}

/** How the walk ended. */
export interface ScanResult {
  /** The visitor stopped it. */
  readonly stopped: boolean
  /** Directories below the start that could not be listed (gone, changed meanwhile, no permission). */
  readonly unreadable: number
  /** Links leading out of the workspace or to nothing (dangling, a loop), not followed. */
  readonly linksOut: number
}

/** Name order, as JavaScript orders strings; for the entries of one directory, whose names are unique. */
const byName = (a: { readonly name: string }, b: { readonly name: string }) =>
  a.name < b.name ? -1 : 1

const asSafeFsError = (path: string) => (error: unknown): SafeFsError =>
  error instanceof SafeFsError ? error : fromSystemError("list", path, error)

interface Pending {
  readonly real: string
  readonly rel: string
  readonly depth: number
}

/**
 * Walks the tree under `start` (a resolved, real directory), calling `visit` on each directory.
 * Failing to open the start is the error; a directory below it that fails is counted.
 */
export const scan = <E, R>(start: string, options: ScanOptions<E, R>): Effect.Effect<ScanResult, SafeFsError | E, R> =>
  Effect.gen(function*() {
    const queue: Array<Pending> = [{ real: start, rel: "", depth: 0 }]
    // every real directory listed or queued, and the roots of the trees covered (start, followed targets)
    const queued = new Set<string>([start])
    const roots: Array<string> = [start]
    const seenFiles = new Set<string>()
    let unreadable = 0
    let linksOut = 0
    const covered = (target: string) => roots.some((root) => isInside(root, target))

    /** Whether a directory met as `name` at `depth` is walked, given its real path. */
    const expansion = (name: string, depth: number, real: string): Expansion =>
      options.skipNames.has(name)
        ? "skipped"
        : queued.has(real)
        ? "repeat"
        : depth >= options.maxDepth
        ? "depth"
        : "listed"
    const enqueue = (real: string, rel: string, depth: number) => {
      queued.add(real)
      queue.push({ real, rel, depth })
    }
    const childRel = (dir: ScanDirectory, name: string) => (dir.rel === "" ? name : `${dir.rel}/${name}`)

    /** A symbolic link: resolved inside the workspace or reported, followed once. */
    const classifyLink = (dir: ScanDirectory, name: string): Effect.Effect<ScanEntry> =>
      Effect.gen(function*() {
        const target = yield* options.resolveLink(NodePath.join(dir.path, name))
        const info = Option.isSome(target) ? yield* Effect.result(stat(target.value)) : undefined
        if (Option.isNone(target) || info === undefined || Result.isFailure(info)) {
          linksOut++
          return { _tag: "LinkOut", name }
        }
        const real = target.value
        if (info.success.isDirectory()) {
          const found = expansion(name, dir.depth + 1, real)
          const expanded = found !== "skipped" && covered(real) ? "repeat" : found
          if (expanded === "listed") {
            roots.push(real)
            enqueue(real, childRel(dir, name), dir.depth + 1)
          }
          return { _tag: "Directory", name, target: real, expanded }
        }
        if (!info.success.isFile()) return { _tag: "Other", name }
        const repeat = covered(real) || seenFiles.has(real)
        seenFiles.add(real)
        return { _tag: "File", name, target: real, repeat }
      })

    /**
     * The entries of a listed directory, classified, subdirectories to walk queued; symbolic
     * links are left as `LinkOut` and their positions returned, for `classifyLink`.
     */
    const classify = (dir: ScanDirectory, listed: ReadonlyArray<NodeFs.Dirent>) => {
      const entries: Array<ScanEntry> = new Array(listed.length)
      const links: Array<number> = []
      for (let i = 0; i < listed.length; i++) {
        const dirent = listed[i]
        if (dirent === undefined) continue
        const name = dirent.name
        if (dirent.isFile()) entries[i] = { _tag: "File", name, repeat: false }
        else if (dirent.isDirectory()) {
          const real = NodePath.join(dir.path, name)
          const expanded = expansion(name, dir.depth + 1, real)
          if (expanded === "listed") enqueue(real, childRel(dir, name), dir.depth + 1)
          entries[i] = { _tag: "Directory", name, expanded }
        } else if (dirent.isSymbolicLink()) {
          entries[i] = { _tag: "LinkOut", name }
          links.push(i)
        } else entries[i] = { _tag: "Other", name }
      }
      return { entries, links }
    }

    /** Opens the directory at `real` and lists it: the open directory (to close) and its entries, or why not. */
    const openAndList = (real: string) => {
      let dir: OpenDirectory
      try {
        dir = openDirectorySync(real)
      } catch (error) {
        return Result.fail(asSafeFsError(real)(error))
      }
      let listed: Result.Result<Array<NodeFs.Dirent>, SafeFsError>
      try {
        listed = Result.succeed(listDirectorySync(dir).sort(byName))
      } catch (error) {
        listed = Result.fail(asSafeFsError(real)(error))
      }
      return Result.succeed({ dir, listed })
    }

    /** Closes a directory; a failure (nothing to undo after a read) is logged. */
    const close = (dir: OpenDirectory) =>
      Effect.suspend(() => {
        try {
          closeSync(dir.fd, dir.path)
          return Effect.void
        } catch (error) {
          return Effect.logWarning(`could not close "${dir.path}"`, error)
        }
      })

    /** Classifies an open directory's entries and hands them to the visitor; `false` stops the walk. */
    const visitListed = (dir: ScanDirectory, listed: ReadonlyArray<NodeFs.Dirent>): Effect.Effect<boolean, E, R> => {
      const { entries, links } = classify(dir, listed)
      // a shortcut: with no links to classify, the entries are visited as they are
      if (links.length === 0) return options.visit(dir, entries)
      return Effect.flatMap(
        Effect.forEach(links, (i) =>
          Effect.map(classifyLink(dir, entries[i]?.name ?? ""), (entry) => {
            entries[i] = entry
          }), { discard: true }),
        () => options.visit(dir, entries)
      )
    }

    // `queue.shift()` would move the whole queue at each step
    for (let head = 0; head < queue.length; head++) {
      const next = queue[head]
      if (next === undefined) break
      const { depth, real, rel } = next
      const go = yield* Effect.acquireUseRelease(
        Effect.sync(() => openAndList(real)),
        (opened): Effect.Effect<boolean, SafeFsError | E, R> => {
          const listed = Result.flatMap(opened, ({ listed }) => listed)
          if (Result.isSuccess(opened) && Result.isSuccess(listed)) return visitListed({ ...opened.success.dir, rel, depth }, listed.success)
          if (Result.isFailure(listed) && rel === "") return Effect.fail(listed.failure)
          unreadable++
          return Effect.succeed(true)
        },
        (opened) => (Result.isSuccess(opened) ? close(opened.success.dir) : Effect.void)
      )
      if (!go) return { stopped: true, unreadable, linksOut }
    }
    return { stopped: false, unreadable, linksOut }
  })
