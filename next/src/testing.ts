/**
 * `effect-tool-system/testing` (Effect 4 tree, in progress): fakes for tests. What is ported so
 * far; the main tree's entry also has `TestModeGate` and the sandbox's attack catalog.
 *
 * @module effect-tool-system/testing
 * @since 0.6.0
 */

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
