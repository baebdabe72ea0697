/**
 * `effect-tool-system/testing` (Effect 4 tree, in progress): fakes for tests. What is ported so
 * far; the main tree's entry also has `TestModeGate` and the sandbox's attack catalog.
 *
 * @since 0.6.0
 */
export * as TestQuestionHandler from "./testing/TestQuestionHandler.js"

export * as TestUrlPolicy from "./testing/TestUrlPolicy.js"
