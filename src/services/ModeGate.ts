/**
 * `ModeGate`: the first gate. In a read-only mode only read-only tools pass, except a vetted
 * scoped-write tool whose every path argument resolves inside the mode's `scopedWriteDirs`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AgentMode } from "../domain/AgentMode.js"
import type { ModeBlocked } from "../domain/errors.js"
import type { ToolInfo } from "../domain/Tool.js"
import type { ResolvedPath } from "../domain/WorkspacePath.js"
import { makeModeGate } from "../layers/ModeGate.js"
import type { Workspace } from "./Workspace.js"

/**
 * The `ModeGate` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface ModeGateService {
  /**
   * Passes, or fails closed with `ModeBlocked`. `paths` are the call's path arguments, already
   * resolved by the `Workspace` (every `WorkspacePath` value, at any depth). The mode gate asks
   * it about a tool with side effects in a read-only mode; every other call passes that gate.
   */
  readonly check: (
    tool: ToolInfo,
    call: { readonly paths: ReadonlyArray<ResolvedPath> },
    mode: AgentMode
  ) => Effect.Effect<void, ModeBlocked>
}

/**
 * Enforces agent modes.
 *
 * @since 0.1.0
 * @category services
 */
export class ModeGate extends Context.Service<ModeGate, ModeGateService>()("effect-tool-system/ModeGate") {
  /** The enforcing gate (resolves scoped-write paths through `Workspace`). */
  static readonly layer: Layer.Layer<ModeGate, never, Workspace> = Layer.effect(ModeGate, makeModeGate)
}
