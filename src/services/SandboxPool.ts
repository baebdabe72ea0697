/**
 * The `SandboxPool` service: its interface, its tag and its layers.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Outcome } from "../tools/builtin/sandbox/protocol.js"
import { makeSandboxPool, type SandboxPoolOptions, type SandboxPoolStats } from "../layers/SandboxPool.js"

export type { Outcome as SandboxOutcome } from "../tools/builtin/sandbox/protocol.js"
export type { SandboxPoolOptions, SandboxPoolStats } from "../layers/SandboxPool.js"

/**
 * The `SandboxPool` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface SandboxPoolService {
  /** Evaluates `code` in a fresh guest runtime with a guest deadline of `timeoutMs`. */
  readonly run: (code: string, timeoutMs: number) => Effect.Effect<Outcome>
  /** Workers alive (idle or busy), idle ones, and how many were started. */
  readonly stats: Effect.Effect<SandboxPoolStats>
}

/**
 * The warm QuickJS Workers that `execute_javascript` runs guest code in. A
 * service so that its Workers live exactly as long as the layer that made them.
 *
 * @since 0.1.0
 * @category services
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SandboxPool } from "effect-tool-system"
 *
 * // guest code in a warm worker, with a one-second guest deadline
 * const outcome = Effect.flatMap(SandboxPool, (pool) => pool.run("1 + 1", 1000))
 * ```
 */
export class SandboxPool extends Context.Service<SandboxPool, SandboxPoolService>()("effect-tool-system/SandboxPool") {
  /** A pool owned by the layer's scope; no Worker starts before the first call. */
  static readonly layer = (options: Partial<SandboxPoolOptions> = {}): Layer.Layer<SandboxPool> =>
    Layer.effect(SandboxPool, makeSandboxPool(options))
}
