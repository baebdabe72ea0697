/**
 * Node's child-process spawner (`@effect/platform-node`'s), loaded when the first command is
 * spawned instead of when the layer is built.
 *
 * Why: its module requires `node:child_process` (which loads `node:net`) as it is evaluated, a
 * few milliseconds of every start of the command line and of every tool system, most of which
 * spawn nothing (`effect-tool-system list` does not; `bench/startup.ts`). The service is the
 * same: each `spawn` runs the Node spawner's own, and `exitCode`, `lines`... are derived from
 * it by `ChildProcessSpawner.make` as the Node layer derives them.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as Path from "effect/Path"
import { ChildProcessSpawner, make } from "effect/process/ChildProcessSpawner"

/**
 * `NodeChildProcessSpawner.layer`, its module imported on the first spawn (once: later spawns
 * use the same spawner). Needs the file system and path services, as the Node layer does
 * (a command's `cwd` is checked and resolved with them).
 *
 * @since 1.0.0
 * @category layers
 */
export const layerNodeLazy: Layer.Layer<ChildProcessSpawner, never, FileSystem.FileSystem | Path.Path> = Layer.effect(
  ChildProcessSpawner,
  Effect.gen(function*() {
    const platform = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
    const node = yield* Effect.cached(
      Effect.promise(() => import("@effect/platform-node/NodeChildProcessSpawner")).pipe(
        Effect.flatMap((module) => Effect.provide(Effect.service(ChildProcessSpawner), module.layer)),
        Effect.provideContext(platform)
      )
    )
    return make((command) => Effect.flatMap(node, (spawner) => spawner.spawn(command)))
  })
)
