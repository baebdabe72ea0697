/**
 * `SANDBOX_ESCAPE_VECTORS`: known ways out of a JavaScript sandbox and ways to deny service,
 * each with the answer a safe `execute_javascript` gives. The tests run every vector through
 * the real tool and also check that the host survives, that the call ends within its deadline,
 * and that nothing of the host was reached or changed.
 *
 * Host-reach vectors return a value describing what they found; they use the word `HOST` for
 * anything that would belong to the host, so no result may contain it.
 *
 * @since 0.1.0
 */
import { DENIAL_OF_SERVICE_VECTORS } from "./denialOfServiceVectors.js"
import { HOST_REACH_VECTORS } from "./hostReachVectors.js"
import type { SandboxEscapeVector } from "./vectorKinds.js"

export type { EscapeCategory, EscapeExpectation, SandboxEscapeVector } from "./vectorKinds.js"

/**
 * The catalog (in the order the tests run it): host reach first, then denial of service.
 *
 * @since 0.1.0
 * @category constants
 */
export const SANDBOX_ESCAPE_VECTORS: ReadonlyArray<SandboxEscapeVector> = [
  ...HOST_REACH_VECTORS,
  ...DENIAL_OF_SERVICE_VECTORS
]
