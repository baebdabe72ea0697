/**
 * A `ModeGate` for tests of the gates after it: with the mode gate open, a test of the policy,
 * confirmation or rate-limit gate can call any tool in any mode.
 *
 * @since 0.6.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ModeGate } from "../services/ModeGate.js"

/**
 * Lets every call through whatever the mode. Never for an application: a read-only mode
 * would no longer keep a model from writing.
 *
 * @since 0.6.0
 * @category layers
 * @example
 * ```ts
 * import { ToolSystem } from "effect-tool-system"
 * import { TestModeGate } from "effect-tool-system/testing"
 *
 * // a test of the confirmation gate that calls write_file in Explore mode
 * const system = ToolSystem.layerNode({ modeGate: TestModeGate.layerOpen })
 * ```
 */
export const layerOpen: Layer.Layer<ModeGate> = Layer.succeed(ModeGate, { check: () => Effect.void })
