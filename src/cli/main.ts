#!/usr/bin/env node
/**
 * The `effect-tool-system` executable. Shipped bundled into `dist/cli/cli.cjs`, which the
 * `bin` (`launch.ts`, `dist/cli/main.cjs`) runs; see `scripts/bundle.mjs`.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { runCommandLine } from "./program.js"
import { runCli } from "./run.js"

/** What @effect/cli needs (`CliApp.Environment`); the tool system brings its own platform services. */
const cliEnvironment = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)

runCli(
  Effect.flatMap(runCommandLine(process.argv), (code) =>
    Effect.sync(() => {
      process.exitCode = code
    })).pipe(Effect.provide(cliEnvironment))
)
