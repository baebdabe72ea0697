/**
 * The platform services of the command line: `NodeServices.layer`'s (what `effect/cli`
 * commands need), but with the child-process spawner and the terminal loaded on first use.
 *
 * Why: their modules require `node:child_process` and `node:readline` as they are evaluated,
 * milliseconds of every start, and most commands (`list`, `--version`, `call` of most tools)
 * neither spawn a process nor prompt (`bench/startup.ts`).
 *
 * @since 1.0.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import type * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Terminal from "effect/Terminal"
import { layerNodeLazy } from "../layers/nodeSpawner.js"

/**
 * `NodeTerminal.layer`, its module imported when the terminal is first used (a prompt), then
 * kept: the same terminal for the rest of the run, released with the layer.
 */
const terminalLazy: Layer.Layer<Terminal.Terminal> = Layer.effect(
  Terminal.Terminal,
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const node = yield* Effect.cached(
      Effect.promise(() => import("@effect/platform-node/NodeTerminal")).pipe(
        Effect.flatMap((module) => Scope.provide(module.make(), scope))
      )
    )
    const use = <A, E, R>(f: (terminal: Terminal.Terminal) => Effect.Effect<A, E, R>) => Effect.flatMap(node, f)
    return Terminal.make({
      columns: use((terminal) => terminal.columns),
      rows: use((terminal) => terminal.rows),
      size: use((terminal) => terminal.size),
      readInput: use((terminal) => terminal.readInput),
      readLine: use((terminal) => terminal.readLine),
      display: (text) => use((terminal) => terminal.display(text))
    })
  })
)

/**
 * What the command line runs with: Node's file system, path, stdio, and the lazily loaded
 * terminal and child-process spawner.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<Command.Environment> = layerNodeLazy.pipe(
  Layer.provideMerge(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeStdio.layer, terminalLazy))
)
