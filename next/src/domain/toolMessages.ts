/**
 * The text a model reads back for a tool call: the output of a call that ran, or what went
 * wrong and what the model can do about it. Every refusal names its stable code
 * (`[MODE_BLOCKED]`, ...) so the model and a person reading the transcript see the same thing.
 *
 * @since 0.1.0
 */
import type { ErrorCode, PathTraversalError } from "./errors.js"
import { capText, showName } from "./shownText.js"
import { readableText } from "./readableJson.js"
import type { MalformedArguments } from "./toolCalls.js"
import type { ToolExecutionFailure, ToolExecutionResult } from "./ToolExecutionResult.js"

/** How much of an escaping path is quoted back. */
const MAX_SHOWN_PATH = 1000

/** What a model can do after each kind of failure. */
const NEXT_STEP: Readonly<Record<ErrorCode, string>> = {
  TOOL_NOT_FOUND: "Call only the tools you were given, by their exact names.",
  INVALID_ARGUMENTS: "Fix the arguments to match the tool's parameters and call it again.",
  MODE_BLOCKED: "The current mode does not allow this call. Use the tools you were given; " +
    "if a change is needed, tell the user what you would change.",
  POLICY_VETO: "The application's policy refused this call. Do not retry it unchanged.",
  CONFIRMATION_REQUIRED: "This call needs a person's confirmation and no one can confirm it here. " +
    "Do not retry it; tell the user what you wanted to do.",
  RATE_LIMITED: "Wait before calling this tool again, or continue without it.",
  TIMEOUT: "The call took too long and was stopped. Try a smaller request.",
  MEMORY_LIMIT: "The call used too much memory and was stopped. Try a smaller input.",
  TOOL_ERROR: "Read the error, change the call accordingly, and do not repeat it unchanged.",
  PATH_TRAVERSAL: "Use paths inside the workspace.",
  PROTECTED_PATH: "Files under .git are not changed by tools; leave them alone (the git tools change the repository).",
  MCP_TOOL_CHANGED: "This tool changed on its MCP server and waits for the user's approval. " +
    "Do not retry it; tell the user it needs approval, or continue without it."
}

/** A refusal or failure: the code, the readable error, the next step. */
const errorText = (code: ErrorCode, error: string, next: string = NEXT_STEP[code]): string =>
  `Error [${code}]: ${error}\n${next}`

/** A tool's output as text: strings as they are, anything else as readable JSON (a bigint, a `Map`, a cycle too). */
export const outputText = (output: unknown): string => {
  if (typeof output === "string") return output
  if (output === undefined || output === null) return "(no output)"
  return readableText(output)
}

/** The text for an executor result. */
export const resultText = (result: ToolExecutionResult): string =>
  result.success ? outputText(result.output) : errorText(result.errorCode, result.error)

/** The arguments were not valid JSON. */
export const malformedText = (tool: string, malformed: MalformedArguments): string =>
  errorText(
    "INVALID_ARGUMENTS",
    `the arguments of "${showName(tool)}" are not valid JSON (${malformed.problem})`,
    "Send the arguments as one JSON object that matches the tool's parameters, and call it again."
  )

/** The call itself was malformed (`problem` says how): it was not run. */
export const malformedCallText = (problem: string): string =>
  errorText(
    "INVALID_ARGUMENTS",
    `this tool call is malformed and was not run: ${problem}`,
    "Send each tool call with a string id, the tool's name as a string and its arguments as JSON text, and call it again."
  )

/** A path argument led out of the workspace: the call was answered, not run (`pathTraversal: "answer"`). */
export const pathTraversalText = (error: PathTraversalError): string =>
  errorText("PATH_TRAVERSAL", `${JSON.stringify(capText(error.path, MAX_SHOWN_PATH))} is outside the workspace (${error.reason})`)

/** A person was asked to confirm the call and said no. */
export const declinedText = (result: ToolExecutionFailure, reason: string | undefined): string =>
  errorText(
    "CONFIRMATION_REQUIRED",
    `the user declined to run "${result.tool}"${reason === undefined || reason === "" ? "" : `: ${reason}`}`,
    "Do not retry this call. Ask the user how to proceed, or take another approach."
  )

/** `ask_user` without a `QuestionHandler`. */
export const askUserUnavailableText: string = errorText(
  "TOOL_NOT_FOUND",
  `"ask_user" is unavailable: no one can answer questions in this session`,
  "Continue with what you know, and state the assumptions you make."
)

/** Invalid `ask_user` arguments (`message` is the `InvalidArguments` message). */
export const askUserInvalidText = (message: string): string => errorText("INVALID_ARGUMENTS", message)

/** The user's answer to an `ask_user` call. */
export const answerText = (answer: string | ReadonlyArray<string>): string =>
  typeof answer === "string" ? answer : JSON.stringify(answer)
