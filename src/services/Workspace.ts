/**
 * `Workspace`: the root every path argument is resolved against, and the resolver that no
 * path can escape (lexically, or through symlinks).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Function from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ResolvedPath } from "../domain/WorkspacePath.js"
import { CurrentRootOverride, makeFixed, makeLive } from "../layers/Workspace.js"

/**
 * The `Workspace` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface WorkspaceService {
  /** The current root (its real path). */
  readonly root: Effect.Effect<string>
  /**
   * Resolves a path to an absolute real path inside the root, or dies with
   * `PathTraversalError` (a defect, so handler code cannot swallow an escape by accident).
   * Relative paths resolve against the root. Paths to files that do not exist yet are
   * checked through their nearest existing ancestor; dangling symlinks are followed to where
   * they point. The executor does this for every `WorkspacePath` argument before a handler
   * runs; a handler calls it only for paths it makes itself.
   */
  readonly resolve: (path: string) => Effect.Effect<ResolvedPath>
  /**
   * `resolve` for tools that walk the tree and skip what leads out of it (a symlink to
   * outside met during a search): `None` instead of the defect.
   */
  readonly tryResolve: (path: string) => Effect.Effect<Option.Option<ResolvedPath>>
  /** A resolved path as the agent should see it: relative to the root (`.` for the root). */
  readonly display: (absolute: string) => Effect.Effect<string>
}

/**
 * Resolves tool paths inside the workspace root: the request-scoped override
 * (`Workspace.withRoot(dir)`), else `WORKSPACE_ROOT`, else `process.cwd()`, read at each call.
 *
 * @since 0.1.0
 * @category services
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Workspace } from "effect-tool-system"
 *
 * // a path a handler builds itself: resolved inside the workspace, or the PathTraversalError defect
 * const absolute = Effect.flatMap(Workspace, (workspace) => workspace.resolve("src/index.ts"))
 * ```
 */
export class Workspace extends Context.Service<Workspace, WorkspaceService>()("effect-tool-system/Workspace") {
  /** The live resolver: override, then `WORKSPACE_ROOT`, then `process.cwd()`, at each call. */
  static readonly layer: Layer.Layer<Workspace, never, FileSystem.FileSystem> = Layer.effect(Workspace, makeLive)

  /** A fixed root, for tests and embedded use (a request-scoped override still wins). */
  static readonly layerFixed = (root: string): Layer.Layer<Workspace, never, FileSystem.FileSystem> =>
    Layer.effect(Workspace, makeFixed(root))

  /** Runs an effect with a request-scoped workspace root (a guest sandbox, say). */
  static readonly withRoot: {
    (root: string): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    <A, E, R>(self: Effect.Effect<A, E, R>, root: string): Effect.Effect<A, E, R>
  } = Function.dual(
    2,
    <A, E, R>(self: Effect.Effect<A, E, R>, root: string): Effect.Effect<A, E, R> =>
      Effect.provideService(self, CurrentRootOverride, Option.some(root))
  )
}
