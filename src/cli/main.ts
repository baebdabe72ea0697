#!/usr/bin/env node
/**
 * The `effect-tool-system` executable.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Effect, Exit } from "effect"
import { ExitCode, root } from "./commands.js"

const cli = Command.run(root, { name: "effect-tool-system", version: "0.1.0" })

/**
 * `call NAME ARGS --version RANGE`: `--version` is a built-in flag of @effect/cli (it prints
 * the program's version), so after `call` it is read as `--tool-version`.
 */
const argv = process.argv[2] === "call"
  ? process.argv.map((arg, i) => (i > 2 && arg === "--version" ? "--tool-version" : arg))
  : process.argv

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
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(program, {
  disableErrorReporting: false,
  teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) ? Number(process.exitCode ?? ExitCode.ok) : ExitCode.failed)
})
