/**
 * Runs a call's gates, in order, before a step (its handler's run, or nothing for `explain`).
 * Every answer given at once that lets the call on costs nothing; the first refusal ends the
 * call with its error; answers that are effects run in order. A `record` (the audit log's, or
 * `explain`'s) learns each gate's decision as it is made, so what it learns is what happened.
 *
 * @since 0.6.0
 */
import * as Effect from "effect/Effect"
import * as AgentMode from "../domain/AgentMode.js"
import type { ToolCallError } from "../domain/errors.js"
import * as Gate from "../domain/Gate.js"
import type { GateDecision } from "../domain/GateDecision.js"
import type { BoundCall, RegisteredTool } from "../domain/Tool.js"
import type { ResolvedPath } from "../domain/WorkspacePath.js"
import type { ExecuteOptions } from "../services/ToolExecutor.js"

/** Learns each decision of a call as it is made. */
export type Recorder = (decision: GateDecision) => void

/** A gate's verdict as a decision. */
export const decisionOf = (gate: string, verdict: Gate.Verdict): GateDecision =>
  verdict._tag === "Refuse"
    ? { gate, outcome: "fail", reason: verdict.error.message, code: verdict.error.code }
    : { gate, outcome: verdict._tag === "Pass" ? "pass" : "skip", reason: verdict.reason }

/** What a gate is asked about a call of `tool` with `paths` (resolved). */
export const gateCallOf = (
  tool: RegisteredTool,
  call: BoundCall,
  options: ExecuteOptions | undefined,
  paths: ReadonlyArray<ResolvedPath>,
  dryRun: boolean
): Gate.GateCall => ({
  tool,
  args: call.args,
  paths,
  mode: options?.mode ?? AgentMode.Default,
  confirm: options?.confirm === true,
  rateLimitKey: options?.rateLimitKey,
  dryRun
})

/** A call's gates: its own (`ExecuteOptions.gates`) first, then the installed list. */
export const gatesOf = (
  installed: ReadonlyArray<Gate.Gate>,
  options: ExecuteOptions | undefined
): ReadonlyArray<Gate.Gate> => {
  const own = options?.gates
  return own === undefined || own.length === 0 ? installed : [...own, ...installed]
}

/** One gate whose answer is to be awaited (or, recorded, replayed) in order. */
interface Pending {
  readonly gate: string
  readonly answer: Effect.Effect<Gate.Verdict>
}

/** The answers of a call's gates still to be awaited, in order (see `ask`). */
export type Answers = ReadonlyArray<Pending>

/**
 * Asks `gates` about `call`: the answers still to be awaited, in order, or `undefined` when
 * every gate let the call on at once (recorded at once, then). Answers given at once after the
 * first effect are kept in order behind it, so that a refusal or a record never comes before
 * an earlier gate's. Nothing is asked after an answer given at once that refuses.
 */
export const ask = (
  gates: ReadonlyArray<Gate.Gate>,
  call: Gate.GateCall,
  record: Recorder | undefined
): Answers | undefined => {
  let pending: Array<Pending> | undefined
  for (const gate of gates) {
    const answer = gate.decide(call)
    if (!Gate.isVerdict(answer)) {
      ;(pending ??= []).push({ gate: gate.name, answer })
      continue
    }
    if (pending === undefined && answer._tag !== "Refuse") {
      record?.(decisionOf(gate.name, answer))
      continue
    }
    // a refusal, or an answer that waits its turn behind an effect
    ;(pending ??= []).push({ gate: gate.name, answer: Effect.succeed(answer) })
    if (answer._tag === "Refuse") break
  }
  return pending
}

/**
 * `run` behind `answers`: each awaited in order and recorded; the first refusal ends the call
 * with its error.
 */
export const behind = <A, E>(
  answers: Answers,
  record: Recorder | undefined,
  run: Effect.Effect<A, E>
): Effect.Effect<A, E | ToolCallError> =>
  answers.reduceRight<Effect.Effect<A, E | ToolCallError>>(
    (next, { answer, gate }) =>
      Effect.flatMap(answer, (verdict) => {
        record?.(decisionOf(gate, verdict))
        return verdict._tag === "Refuse" ? Effect.fail(verdict.error) : next
      }),
    run
  )
