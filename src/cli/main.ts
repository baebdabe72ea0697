#!/usr/bin/env node
/**
 * The `effect-tool-system` executable. Shipped bundled into `dist/cli/cli.cjs`, which the
 * `bin` (`launch.ts`, `dist/cli/main.cjs`) runs; see `scripts/bundle.mjs`.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { layerNodeLazy } from "../layers/nodeSpawner.js"
import { runCommandLine } from "./program.js"
import { runCli } from "./run.js"

/**
 * `NodeServices.layer` (what `effect/cli` commands need), but with the child-process spawner
 * loaded on the first spawn: `node:child_process` is a few milliseconds of every start, and
 * most commands (`list`, `--version`) spawn nothing.
 */
const platform = layerNodeLazy.pipe(
  Layer.provideMerge(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeStdio.layer, NodeTerminal.layer))
)

runCli(
  Effect.flatMap(runCommandLine(process.argv), (code) =>
    Effect.sync(() => {
      process.exitCode = code
    })).pipe(Effect.provide(platform))
)
