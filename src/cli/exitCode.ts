/**
 * `CommandExitCode`: where a command leaves its exit code, for `runCommandLine` to give back
 * when the command is done (a command's handler itself returns nothing to `effect/cli`).
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Ref from "effect/Ref"

/** The exit code of the command being run. */
export class CommandExitCode extends Context.Service<CommandExitCode, Ref.Ref<number>>()(
  "effect-tool-system/cli/CommandExitCode"
) {}
