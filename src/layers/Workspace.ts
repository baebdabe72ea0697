/**
 * The workspace resolver. Beyond the original's lexical check, it follows symlinks: the
 * longest existing prefix is resolved with `realpath`, dangling links are followed to their
 * target, and containment is checked on path segments (`/ws-evil` is not inside `/ws`).
 *
 * @since 0.1.0
 */
import { FileSystem } from "@effect/platform"
import { Effect, FiberRef, Option } from "effect"
import * as NodePath from "node:path"
import { PathTraversalError } from "../domain/errors.js"
import type { WorkspaceService } from "../services/Workspace.js"

/** The request-scoped root override set by `Workspace.withRoot`. */
export const currentRootOverride: FiberRef.FiberRef<Option.Option<string>> = FiberRef.unsafeMake(
  Option.none<string>()
)

/** Longest path (in bytes) a tool may pass; longer ones are refused before any I/O. */
export const MAX_PATH_BYTES = 4096
const MAX_LINK_HOPS = 40

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
      Effect.orElseSucceed(() => NodePath.resolve(root)),
      Effect.tap((real) => Effect.sync(() => realRoots.set(root, real)))
    )
  }

  const lexicalRoot: Effect.Effect<string> = Effect.flatMap(
    FiberRef.get(currentRootOverride),
    Option.match({ onNone: () => baseRoot, onSome: Effect.succeed })
  ).pipe(Effect.map((root) => NodePath.resolve(root)))

  /**
   * The real path of `candidate`: the longest existing prefix through `realpath`, the rest
   * appended; a dangling symlink on the way is followed to its target (up to 40 hops).
   */
  const realResolve = (candidate: string, hops: number): Effect.Effect<string, string> =>
    Effect.gen(function*() {
      let prefix = candidate
      const rest: Array<string> = []
      while (true) {
        const real = yield* Effect.option(fs.realPath(prefix))
        if (Option.isSome(real)) return NodePath.join(real.value, ...rest)
        const link = yield* Effect.option(fs.readLink(prefix))
        if (Option.isSome(link)) {
          if (hops >= MAX_LINK_HOPS) return yield* Effect.fail("too many levels of symbolic links")
          const target = NodePath.resolve(NodePath.dirname(prefix), link.value)
          return yield* realResolve(NodePath.join(target, ...rest), hops + 1)
        }
        const parent = NodePath.dirname(prefix)
        if (parent === prefix) return NodePath.join(prefix, ...rest)
        rest.unshift(NodePath.basename(prefix))
        prefix = parent
      }
    })

  const resolve = (input: string): Effect.Effect<string, PathTraversalError> =>
    Effect.flatMap(lexicalRoot, (root) =>
      Effect.flatMap(realRoot(root), (rootReal) => {
        const refuse = (reason: string) =>
          Effect.fail(new PathTraversalError({ path: input, workspace: rootReal, reason }))
        if (input.includes("\0")) return refuse("NUL byte in path")
        if (Buffer.byteLength(input) > MAX_PATH_BYTES) return refuse(`path longer than ${MAX_PATH_BYTES} bytes`)
        if (/^[a-zA-Z][a-zA-Z0-9+.-]+:\/\//.test(input)) return refuse("URLs are not paths")
        const candidate = NodePath.isAbsolute(input) ? NodePath.normalize(input) : NodePath.resolve(root, input)
        if (!isInside(root, candidate) && !isInside(rootReal, candidate)) return refuse("resolves outside the root")
        return realResolve(candidate, 0).pipe(
          Effect.catchAll(refuse),
          Effect.flatMap((real) => isInside(rootReal, real) ? Effect.succeed(real) : refuse("a symlink leads outside the root"))
        )
      }))

  return {
    root: Effect.flatMap(lexicalRoot, realRoot),
    resolve,
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
