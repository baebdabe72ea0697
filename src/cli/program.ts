/**
 * The command line as an Effect: `runCommandLine(argv)` parses and runs one command and gives
 * its exit code, without touching `process.exitCode`. `main.ts` runs it as the process's main
 * fiber; tests run it in process, with a Console of their own.
 *
 * @since 0.2.0
 */
import * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import * as Command from "effect/cli/Command"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { root } from "./commands.js"
import { CommandExitCode } from "./exitCode.js"
import { ExitCode } from "./run.js"
import { VERSION } from "../version.js"


const cli = Command.runWith(root, { version: VERSION })

/**
 * How `effect/cli` presents what it prints itself, as the Effect 3 line's command line (tag
 * effect3) did: help on stdout; a usage error as its message alone on stderr, with nothing on stdout (no help
 * page: a script reading stdout gets nothing from a command line that did not run); the
 * version as the number and a blank line.
 */
const presenter: CliOutput.Presenter = {
  present: (event) =>
    CliOutput.Formatter.use((formatter) => {
      switch (event._tag) {
        case "Help":
          return Console.log(formatter.formatHelpDoc(event.helpDoc))
        case "InvalidInvocation":
          return Console.error(event.errors.map((error) => formatter.formatCliError(error)).join("\n"))
        case "Version":
          return Console.log(`${event.version}\n`)
      }
    })
}

/**
 * `call NAME ARGS --version RANGE` (and `explain`): `--version` is a built-in flag of
 * `effect/cli` (it prints the program's version), so after `call` or `explain` it is read as
 * `--tool-version`. `argv` as `process.argv`: node, the script, then the arguments.
 */
export const cliArguments = (argv: ReadonlyArray<string>): ReadonlyArray<string> =>
  argv[2] === "call" || argv[2] === "explain"
    ? argv.map((arg) => (arg === "--version" ? "--tool-version" : arg))
    : argv

/**
 * Runs one command line (`argv` as `process.argv`) and gives its exit code: the command's
 * own, `ExitCode.usage` when the arguments do not parse (`effect/cli` has printed why), and
 * `ExitCode.failed` for a failure the command did not handle (printed on stderr) or a defect
 * (logged).
 */
export const runCommandLine = (argv: ReadonlyArray<string>): Effect.Effect<number, never, Command.Environment> =>
  Effect.flatMap(Ref.make<number>(ExitCode.ok), (exitCode) =>
    Effect.suspend(() => cli(cliArguments(argv).slice(2))).pipe(
      Effect.andThen(Ref.get(exitCode)),
      Effect.provideService(CommandExitCode, exitCode),
      Effect.provideService(CliOutput.Presenter, presenter),
      Effect.catch((error) =>
        CliError.isCliError(error)
          ? Effect.succeed(error._tag === "ShowHelp" && error.errors.length === 0 ? ExitCode.ok : ExitCode.usage)
          : Effect.as(Console.error(String(error)), ExitCode.failed)
      ),
      // a defect (an audit log that cannot be opened, say): logged, exit 1; an interruption stays one
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.as(Effect.logError(cause), ExitCode.failed)
      )
    ))
