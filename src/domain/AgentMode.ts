/**
 * Agent modes: what an agent may do. A read-only mode only lets read-only tools through,
 * except vetted scoped-write tools whose every path argument lies inside `scopedWriteDirs`.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Option from "effect/Option"

/**
 * An agent mode, checked by the `ModeGate` on every call.
 *
 * @since 0.1.0
 * @category models
 */
export class AgentMode extends Data.Class<{
  readonly name: string
  /** Only read-only tools (and scoped writes, below) are allowed. */
  readonly readOnly: boolean
  /** Workspace-relative directories where vetted write tools may still write in a read-only mode. */
  readonly scopedWriteDirs: ReadonlyArray<string>
  /** Text appended to the system prompt so the model knows the mode's constraints. */
  readonly systemPromptAddendum: string
}> {}

/**
 * Everything is allowed.
 *
 * @since 0.1.0
 * @category constants
 */
export const Default = new AgentMode({
  name: "default",
  readOnly: false,
  scopedWriteDirs: [],
  systemPromptAddendum: ""
})

/**
 * Read-only: explore the workspace without changing it.
 *
 * @since 0.1.0
 * @category constants
 */
export const Explore = new AgentMode({
  name: "explore",
  readOnly: true,
  scopedWriteDirs: [],
  systemPromptAddendum:
    "You are in EXPLORE mode: only read-only tools are available. Do not try to modify files or run commands."
})

/**
 * Read-only, but plans may be written under `plans/`.
 *
 * @since 0.1.0
 * @category constants
 */
export const Plan = new AgentMode({
  name: "plan",
  readOnly: true,
  scopedWriteDirs: ["plans"],
  systemPromptAddendum:
    "You are in PLAN mode: tools are read-only, except that file-writing tools may write under plans/."
})

/**
 * The built-in modes, by name.
 *
 * @since 0.1.0
 * @category constants
 */
export const builtins: ReadonlyArray<AgentMode> = [Default, Explore, Plan]

/**
 * Looks a built-in mode up by name.
 *
 * @since 0.1.0
 * @category utils
 */
export const fromName = (name: string): Option.Option<AgentMode> =>
  Option.fromNullishOr(builtins.find((m) => m.name === name))
