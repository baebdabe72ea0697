/**
 * `effect-tool-system call NAME 'ARGS'`: one call through every gate, its
 * `ToolExecutionResult` printed as one JSON object; `--audit FILE` appends its audit record.
 *
 * @since 0.2.0
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { PathTraversalError } from "../domain/errors.js"
import { readableText } from "../domain/readableJson.js"
import type { ToolExecutionResult } from "../domain/ToolExecutionResult.js"
import { AuditLog } from "../services/AuditLog.js"
import { ToolSystem } from "../services/ToolSystem.js"
import {
  mcpConfigOption,
  modeOf,
  modeOption,
  parseArguments,
  switchFlag,
  toolVersionOption,
  withSystem,
  workspaceOption
} from "./common.js"
import { ExitCode } from "./run.js"

/** `--audit FILE`: the JSON-lines audit log (`AuditLog.layerJsonl`). */
export const auditOption = Flag.File("audit").pipe(
  Flag.withDescription("Append an audit record of each call to this JSON-lines file (created with mode 0600)"),
  Flag.optional
)

/** The audit layer of an `--audit` value. */
export const auditLayerOf = (file: Option.Option<string>, options: { readonly durable?: boolean } = {}) =>
  Option.match(file, { onNone: () => undefined, onSome: (path) => AuditLog.layerJsonl({ file: path, ...options }) })

/**
 * The line `call` prints: the result as one JSON object, its output as readable JSON (a bigint
 * as `"10n"`, a `Map` with its entries, a cycle marked: never a crash, never `{}`).
 */
export const resultLine = (result: ToolExecutionResult): string => readableText(result)

/** The arguments of a call (`call` and `explain`): the tool, then its arguments as a JSON object. */
export const callArguments = (what: { readonly name: string }) => ({
  name: Argument.String("name").pipe(Argument.withDescription(what.name)),
  args: Argument.String("args").pipe(Argument.withDescription("The arguments as a JSON object"), Argument.withDefault("{}"))
})

export const call = Command.make(
  "call",
  {
    ...callArguments({ name: "The tool to call" }),
    mode: modeOption,
    yes: switchFlag("yes").pipe(Flag.withAlias("y"), Flag.withDescription("Confirm the call")),
    workspace: workspaceOption,
    version: toolVersionOption,
    mcpConfig: mcpConfigOption,
    audit: auditOption
  },
  ({ args, audit, mcpConfig, mode, name, version, workspace, yes }) =>
    Effect.gen(function*() {
      const parsed = yield* parseArguments(args)
      if (Result.isFailure(parsed)) return parsed.failure
      const system = yield* ToolSystem
      const exit = yield* Effect.exit(
        system.execute(name, parsed.success, {
          mode: modeOf(mode),
          confirm: yes,
          versionRange: Option.getOrUndefined(version)
        })
      )
      if (Exit.isSuccess(exit)) {
        yield* Console.log(resultLine(exit.value))
        return exit.value.success ? ExitCode.ok : ExitCode.failed
      }
      const defect = Cause.findDefect(exit.cause)
      if (Result.isSuccess(defect) && defect.success instanceof PathTraversalError) {
        yield* Console.error(defect.success.message)
        return ExitCode.pathTraversal
      }
      yield* Console.error(Cause.pretty(exit.cause))
      return ExitCode.failed
    }).pipe((effect) => withSystem(effect, { workspace, mcpConfig, audit: auditLayerOf(audit), tool: name }))
).pipe(Command.withDescription("Call a tool and print its ToolExecutionResult as JSON"))
