/**
 * The command line as an Effect: `runCommandLine(argv)` parses and runs one command and gives
 * its exit code, without touching `process.exitCode`. `main.ts` runs it as the process's main
 * fiber; tests run it in process, with a Console of their own.
 *
 * @since 0.2.0
 */
import type * as CliApp from "@effect/cli/CliApp"
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { root } from "./commands.js"
import { CommandExitCode } from "./exitCode.js"
import { ExitCode } from "./run.js"

const cli = Command.run(root, { name: "effect-tool-system", version: "0.1.0" })

/**
 * `call NAME ARGS --version RANGE` (and `explain`): `--version` is a built-in flag of
 * @effect/cli (it prints the program's version), so after `call` or `explain` it is read as
 * `--tool-version`. `argv` as `process.argv`: node, the script, then the arguments.
 */
export const cliArguments = (argv: ReadonlyArray<string>): ReadonlyArray<string> =>
  argv[2] === "call" || argv[2] === "explain"
    ? argv.map((arg) => (arg === "--version" ? "--tool-version" : arg))
    : argv

/**
 * Runs one command line (`argv` as `process.argv`) and gives its exit code: the command's
 * own, `ExitCode.usage` when the arguments do not parse (@effect/cli has printed why), and
 * `ExitCode.failed` for a failure the command did not handle (printed on stderr) or a defect
 * (logged).
 */
export const runCommandLine = (argv: ReadonlyArray<string>): Effect.Effect<number, never, CliApp.CliApp.Environment> =>
  Effect.flatMap(Ref.make<number>(ExitCode.ok), (exitCode) =>
    Effect.suspend(() => cli(cliArguments(argv))).pipe(
      Effect.zipRight(Ref.get(exitCode)),
      Effect.provide(Context.make(CommandExitCode, exitCode)),
      Effect.catchAll((error) =>
        ValidationError.isValidationError(error)
          ? Effect.succeed(ExitCode.usage)
          : Effect.as(Console.error(String(error)), ExitCode.failed)
      ),
      // a defect (an audit log that cannot be opened, say): logged, exit 1; an interruption stays one
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.as(Effect.logError(cause), ExitCode.failed)
      )
    ))
