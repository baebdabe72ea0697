/**
 * `effect-tool-system call NAME 'ARGS'`: one call through every gate, its
 * `ToolExecutionResult` printed as one JSON object; `--audit FILE` appends its audit record.
 *
 * @since 0.2.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
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
  toolVersionOption,
  withSystem,
  workspaceOption
} from "./common.js"
import { ExitCode } from "./run.js"

/** `--audit FILE`: the JSON-lines audit log (`AuditLog.layerJsonl`). */
export const auditOption = Options.file("audit").pipe(
  Options.withDescription("Append an audit record of each call to this JSON-lines file (created with mode 0600)"),
  Options.optional
)

/** The audit layer of an `--audit` value. */
export const auditLayerOf = (file: Option.Option<string>) =>
  Option.match(file, { onNone: () => undefined, onSome: (path) => AuditLog.layerJsonl({ file: path }) })

/**
 * The line `call` prints: the result as one JSON object, its output as readable JSON (a bigint
 * as `"10n"`, a `Map` with its entries, a cycle marked: never a crash, never `{}`).
 */
export const resultLine = (result: ToolExecutionResult): string => readableText(result)

export const call = Command.make(
  "call",
  {
    name: Args.text({ name: "name" }).pipe(Args.withDescription("The tool to call")),
    args: Args.text({ name: "args" }).pipe(Args.withDescription("The arguments as a JSON object"), Args.withDefault("{}")),
    mode: modeOption,
    yes: Options.boolean("yes").pipe(Options.withAlias("y"), Options.withDescription("Confirm the call")),
    workspace: workspaceOption,
    version: toolVersionOption,
    mcpConfig: mcpConfigOption,
    audit: auditOption
  },
  ({ args, audit, mcpConfig, mode, name, version, workspace, yes }) =>
    Effect.gen(function*() {
      const parsed = yield* parseArguments(args)
      if (Either.isLeft(parsed)) return parsed.left
      const system = yield* ToolSystem
      const exit = yield* Effect.exit(
        system.execute(name, parsed.right, {
          mode: modeOf(mode),
          confirm: yes,
          versionRange: Option.getOrUndefined(version)
        })
      )
      if (Exit.isSuccess(exit)) {
        yield* Console.log(resultLine(exit.value))
        return exit.value.success ? ExitCode.ok : ExitCode.failed
      }
      const defect = Cause.dieOption(exit.cause)
      if (Option.isSome(defect) && defect.value instanceof PathTraversalError) {
        yield* Console.error(defect.value.message)
        return ExitCode.pathTraversal
      }
      yield* Console.error(Cause.pretty(exit.cause))
      return ExitCode.failed
    }).pipe((effect) => withSystem(effect, { workspace, mcpConfig, audit: auditLayerOf(audit), tool: name }))
).pipe(Command.withDescription("Call a tool and print its ToolExecutionResult as JSON"))
