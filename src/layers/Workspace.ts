/**
 * The workspace resolver. Beyond the original's lexical check, it follows symlinks: the
 * longest existing prefix is resolved with `realpath`, dangling links are followed to their
 * target, and containment is checked on path segments (`/ws-evil` is not inside `/ws`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as NodePath from "node:path"
import { PathTraversalError } from "../domain/errors.js"
import { type ResolvedPath, unsafeResolvedPath } from "../domain/WorkspacePath.js"
import type { WorkspaceService } from "../services/Workspace.js"

/**
 * The request-scoped root override set by `Workspace.withRoot`: `None` unless an effect runs
 * with it provided (`Effect.provideService`), which the fibers it forks inherit. (Effect 3's
 * fiber ref `currentRootOverride`.)
 */
export const CurrentRootOverride: Context.Reference<Option.Option<string>> = Context.Reference(
  "effect-tool-system/Workspace/CurrentRootOverride",
  { defaultValue: () => Option.none<string>() }
)

/** Longest path (in bytes) a tool may pass; longer ones are refused before any I/O. */
export const MAX_PATH_BYTES = 4096
const MAX_LINK_HOPS = 40
const MAX_CACHED_ROOTS = 256

/** Whether `child` is `parent` or lies below it, compared segment by segment. */
export const isInside = (parent: string, child: string): boolean => {
  const rel = NodePath.relative(parent, child)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${NodePath.sep}`) && !NodePath.isAbsolute(rel))
}

const make = (fs: FileSystem.FileSystem, baseRoot: Effect.Effect<string>): WorkspaceService => {
  const realRoots = new Map<string, string>()

  const realRoot = (root: string): Effect.Effect<string> => {
    const cached = realRoots.get(root)
    if (cached !== undefined) return Effect.succeed(cached)
    return fs.realPath(root).pipe(
      Effect.tap((real) =>
        Effect.sync(() => {
          // many request-scoped roots (one per guest sandbox) must not grow the cache forever
          if (realRoots.size >= MAX_CACHED_ROOTS) realRoots.clear()
          realRoots.set(root, real)
        })
      ),
      // a root that does not exist (yet) is taken as written, and looked up again next time
      Effect.orElseSucceed(() => NodePath.resolve(root))
    )
  }

  const lexicalRoot: Effect.Effect<string> = Effect.flatMap(
    CurrentRootOverride,
    Option.match({ onNone: () => baseRoot, onSome: Effect.succeed })
  ).pipe(Effect.map((root) => NodePath.resolve(root)))

  /**
   * The real path of `root/rel` (`rootReal` is the root's real path, `rel` a lexically clean
   * relative path). An existing path is one `realpath`. Otherwise the components are walked
   * from the root: existing ones through `realpath`; a dangling symlink is replaced by its
   * target, read against the link's real directory (so a `..` in the target is physical, as
   * the OS would follow it); a missing component and those after it are kept as names, a `..`
   * taking one back off (and, past them, going up from the real directory). Fails after 40
   * symlink hops (a loop).
   */
  const realResolve = (rootReal: string, rel: string): Effect.Effect<string, string> =>
    Effect.gen(function*() {
      const whole = yield* Effect.option(fs.realPath(NodePath.join(rootReal, rel)))
      if (Option.isSome(whole)) return whole.value
      if (rel !== "") {
        // the common miss: a new file in an existing directory
        const parent = yield* Effect.option(fs.realPath(NodePath.join(rootReal, NodePath.dirname(rel))))
        if (Option.isSome(parent)) {
          const link = yield* Effect.option(fs.readLink(NodePath.join(parent.value, NodePath.basename(rel))))
          if (Option.isNone(link)) return NodePath.join(parent.value, NodePath.basename(rel))
        }
      }
      const pending = rel.split(NodePath.sep).filter((s) => s.length > 0)
      let current = rootReal
      const missing: Array<string> = []
      let hops = 0
      while (pending.length > 0) {
        const name = pending.shift() ?? "."
        if (name === ".") continue
        if (name === "..") {
          if (missing.length > 0) missing.pop()
          else current = NodePath.dirname(current)
          continue
        }
        if (missing.length > 0) {
          missing.push(name)
          continue
        }
        const next = NodePath.join(current, name)
        const real = yield* Effect.option(fs.realPath(next))
        if (Option.isSome(real)) {
          current = real.value
          continue
        }
        const link = yield* Effect.option(fs.readLink(next))
        if (Option.isNone(link)) {
          missing.push(name)
          continue
        }
        hops += 1
        if (hops > MAX_LINK_HOPS) return yield* Effect.fail("too many levels of symbolic links")
        if (NodePath.isAbsolute(link.value)) current = NodePath.parse(link.value).root
        pending.unshift(...link.value.split(NodePath.sep).filter((s) => s.length > 0))
      }
      return NodePath.join(current, ...missing)
    })

  const check = (input: string): Effect.Effect<ResolvedPath, PathTraversalError> =>
    Effect.flatMap(lexicalRoot, (root) =>
      Effect.flatMap(realRoot(root), (rootReal) => {
        const refuse = (reason: string) =>
          Effect.fail(new PathTraversalError({ path: input, workspace: rootReal, reason }))
        if (input.includes("\0")) return refuse("NUL byte in path")
        if (Buffer.byteLength(input) > MAX_PATH_BYTES) return refuse(`path longer than ${MAX_PATH_BYTES} bytes`)
        if (/^[a-zA-Z][a-zA-Z0-9+.-]+:\/\//.test(input)) return refuse("URLs are not paths")
        // `resolve` also drops trailing slashes, so `dangling/` is the link itself
        const candidate = NodePath.resolve(root, input)
        const rel = isInside(root, candidate)
          ? NodePath.relative(root, candidate)
          : isInside(rootReal, candidate)
          ? NodePath.relative(rootReal, candidate)
          : undefined
        if (rel === undefined) return refuse("resolves outside the root")
        return realResolve(rootReal, rel).pipe(
          Effect.catch(refuse),
          Effect.flatMap((real) =>
            isInside(rootReal, real)
              ? Effect.succeed(unsafeResolvedPath(real))
              : refuse("a symlink leads outside the root")
          )
        )
      }))

  return {
    root: Effect.flatMap(lexicalRoot, realRoot),
    resolve: (input) => Effect.orDie(check(input)),
    tryResolve: (input) => Effect.option(check(input)),
    display: (absolute) =>
      Effect.map(Effect.flatMap(lexicalRoot, realRoot), (root) => NodePath.relative(root, absolute) || ".")
  }
}

/** Root: override, then `WORKSPACE_ROOT`, then `process.cwd()`, read at each call. */
export const makeLive: Effect.Effect<WorkspaceService, never, FileSystem.FileSystem> = Effect.map(
  FileSystem.FileSystem,
  (fs) => make(fs, Effect.sync(() => process.env.WORKSPACE_ROOT || process.cwd()))
)

/** A fixed root (a request-scoped override still wins). */
export const makeFixed = (root: string): Effect.Effect<WorkspaceService, never, FileSystem.FileSystem> =>
  Effect.map(FileSystem.FileSystem, (fs) => make(fs, Effect.succeed(root)))
