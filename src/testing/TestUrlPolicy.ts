/**
 * A `UrlPolicy` for tests of the web tools against their own servers on 127.0.0.1.
 *
 * @since 0.6.0
 */
import * as Layer from "effect/Layer"
import { makeUrlPolicy } from "../layers/UrlPolicy.js"
import { LOOPBACK_RULES } from "../layers/urlPolicyRules.js"
import { UrlPolicy } from "../services/UrlPolicy.js"

/**
 * The default policy plus loopback addresses (`127.0.0.0/8`, `::1` and their IPv4-mapped
 * forms, and names such as `localhost` that resolve to them); everything else the default
 * refuses stays refused. The same rules as `UrlPolicy.layerWith({ allowLoopback: true })`,
 * which an application that must reach a local service uses (or `UrlPolicy.layerAllowList`
 * with that one address).
 *
 * @since 0.6.0
 * @category layers
 * @example
 * ```ts
 * import { ToolSystem } from "effect-tool-system"
 * import { TestUrlPolicy } from "effect-tool-system/testing"
 *
 * const system = ToolSystem.layerNode({ urlPolicy: TestUrlPolicy.layerAllowLoopback })
 * ```
 */
export const layerAllowLoopback: Layer.Layer<UrlPolicy> = Layer.effect(UrlPolicy, makeUrlPolicy(LOOPBACK_RULES))
