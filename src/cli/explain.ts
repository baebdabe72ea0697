/**
 * `effect-tool-system explain NAME 'ARGS'`: what `call` would decide, gate by gate, without
 * running the tool (`ToolSystem.explain`). A table by default, the `CallExplanation` as JSON
 * with `--json`. The exit code is the one `call` would end with when a gate refuses: 0 when
 * the call would run, 1 when a gate refuses, 3 when an argument escapes the workspace, 2 on
 * a usage error.
 *
 * @since 0.2.0
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type { CallExplanation, GateDecision } from "../domain/GateDecision.js"
import { ToolSystem } from "../services/ToolSystem.js"
import { callArguments } from "./call.js"
import {
  jsonOption,
  mcpConfigOption,
  modeOf,
  modeOption,
  pad,
  parseArguments,
  switchFlag,
  toolVersionOption,
  withSystem,
  workspaceOption
} from "./common.js"
import { ExitCode } from "./run.js"

const outcomeText: Record<GateDecision["outcome"], string> = {
  pass: "pass",
  fail: "FAIL",
  skip: "skip",
  not_reached: "not reached"
}

/** A gate's reason, led by its code when the reason does not already say it. */
const reasonOf = (gate: GateDecision): string =>
  gate.code === undefined || gate.reason.startsWith(gate.code) ? gate.reason : `${gate.code}: ${gate.reason}`

/**
 * The explanation as a table: a verdict line, one row per gate, and the message `execute`
 * would return when the refusing gate's reason does not already say it.
 */
export const renderExplanation = (explanation: CallExplanation): string => {
  const tool = explanation.version === null ? explanation.tool : `${explanation.tool} ${explanation.version}`
  const refusing = explanation.gates.find((g) => g.outcome === "fail")
  const verdict = explanation.wouldRun
    ? "would run"
    : `refused${refusing === undefined ? "" : ` by the ${refusing.gate} gate`} (${explanation.errorCode ?? "no code"})`
  const gateWidth = Math.max(4, ...explanation.gates.map((g) => g.gate.length)) + 2
  const rows = explanation.gates.map((g) => `${pad(g.gate, gateWidth)}${pad(outcomeText[g.outcome], 13)}${reasonOf(g)}`)
  const message = explanation.message
  const extra = message === null || (refusing !== undefined && reasonOf(refusing).includes(message)) ? [] : ["", message]
  return [
    `${tool}, mode ${explanation.mode}: ${verdict}`,
    "",
    `${pad("GATE", gateWidth)}${pad("OUTCOME", 13)}REASON`,
    ...rows,
    ...extra
  ].join("\n")
}

/** The exit code `call` would end with, as far as the gates decide it. */
export const exitCodeOf = (explanation: CallExplanation): number =>
  explanation.wouldRun
    ? ExitCode.ok
    : explanation.errorCode === "PATH_TRAVERSAL"
    ? ExitCode.pathTraversal
    : ExitCode.failed

/** What `explain` takes. */
export interface ExplainInput {
  readonly name: string
  readonly args: string
  readonly mode: Option.Option<string>
  readonly yes: boolean
  readonly version: Option.Option<string>
  readonly json: boolean
}

/** The command's work, given a tool system: prints the explanation, returns the exit code. */
export const explainCall = (input: ExplainInput): Effect.Effect<number, never, ToolSystem> =>
  Effect.gen(function*() {
    const parsed = yield* parseArguments(input.args)
    if (Result.isFailure(parsed)) return parsed.failure
    const system = yield* ToolSystem
    const exit = yield* Effect.exit(system.explain(input.name, parsed.success, {
      mode: modeOf(input.mode),
      confirm: input.yes,
      versionRange: Option.getOrUndefined(input.version)
    }))
    if (Exit.isFailure(exit)) {
      yield* Console.error(Cause.pretty(exit.cause))
      return ExitCode.failed
    }
    yield* Console.log(input.json ? JSON.stringify(exit.value, null, 2) : renderExplanation(exit.value))
    return exitCodeOf(exit.value)
  })

export const explain = Command.make(
  "explain",
  {
    ...callArguments({ name: "The tool of the call" }),
    mode: modeOption,
    yes: switchFlag("yes").pipe(Flag.withAlias("y"), Flag.withDescription("Explain the call as confirmed")),
    workspace: workspaceOption,
    version: toolVersionOption,
    mcpConfig: mcpConfigOption,
    json: jsonOption
  },
  ({ mcpConfig, workspace, ...input }) => withSystem(explainCall(input), { workspace, mcpConfig, tool: input.name })
).pipe(Command.withDescription(
  "Explain what call would decide, gate by gate, without running the tool (exit 0: it would run, 1: a gate refuses)"
))
