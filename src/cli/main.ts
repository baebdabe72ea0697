#!/usr/bin/env node
/**
 * The `effect-tool-system` executable. Shipped bundled into `dist/cli/cli.cjs`, which the
 * `bin` (`launch.ts`, `dist/cli/main.js`) runs; see `scripts/bundle.mjs`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { root } from "./commands.js"
import { ExitCode, runCli } from "./run.js"

const cli = Command.run(root, { name: "effect-tool-system", version: "0.1.0" })

/**
 * `call NAME ARGS --version RANGE` (and `explain`): `--version` is a built-in flag of
 * @effect/cli (it prints the program's version), so after `call` or `explain` it is read as
 * `--tool-version`.
 */
const argv = process.argv[2] === "call" || process.argv[2] === "explain"
  ? process.argv.map((arg, i) => (i > 2 && arg === "--version" ? "--tool-version" : arg))
  : process.argv

/** What @effect/cli needs (`CliApp.Environment`); the tool system brings its own platform services. */
const cliEnvironment = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)

const program = Effect.suspend(() => cli(argv)).pipe(
  Effect.catchAll((error) =>
    ValidationError.isValidationError(error)
      ? Effect.sync(() => {
        process.exitCode = ExitCode.usage
      })
      : Effect.zipRight(
        Console.error(String(error)),
        Effect.sync(() => {
          process.exitCode = ExitCode.failed
        })
      )
  ),
  Effect.provide(cliEnvironment)
)

runCli(program)
