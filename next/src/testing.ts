/**
 * `effect-tool-system/testing`: what only tests use. Fake layers for the services an
 * application's tests swap out (each as a namespace named after the service, as Effect's
 * `TestClock`), and the sandbox's attack catalog, which the library's own tests run through
 * `execute_javascript` and which an application can run against its own sandbox settings.
 *
 * A separate entry, so that the main entry holds only what an application runs.
 *
 * @module effect-tool-system/testing
 * @since 0.6.0
 */

/**
 * `TestModeGate.layerOpen`: a mode gate that lets every call through, for tests of the gates
 * after it.
 *
 * @since 0.6.0
 * @category exports
 */
export * as TestModeGate from "./testing/TestModeGate.js"

/**
 * `TestQuestionHandler.layerScripted(answers)`: the user's answers, given up front.
 *
 * @since 0.6.0
 * @category exports
 */
export * as TestQuestionHandler from "./testing/TestQuestionHandler.js"

/**
 * `TestUrlPolicy.layerAllowLoopback`: the web tools may reach the test's own 127.0.0.1 servers.
 *
 * @since 0.6.0
 * @category exports
 */
export * as TestUrlPolicy from "./testing/TestUrlPolicy.js"

export {
  type EscapeCategory,
  type EscapeExpectation,
  SANDBOX_ESCAPE_VECTORS,
  type SandboxEscapeVector
} from "./tools/builtin/sandbox/escapeVectors.js"
