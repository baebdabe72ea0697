/**
 * The texts a model reads back, whole: the error line with its code, and the next step that
 * goes with each kind of refusal.
 */
import { describe, expect, it } from "@effect/vitest"
import { PathTraversalError, RateLimited } from "../../src/domain/errors.js"
import * as Result from "../../src/domain/ToolExecutionResult.js"
import {
  answerText,
  askUserInvalidText,
  askUserUnavailableText,
  declinedText,
  malformedCallText,
  malformedText,
  pathTraversalText,
  outputText,
  resultText
} from "../../src/domain/toolMessages.js"

const refused = Result.fromError("write_file", "1.0.0", new RateLimited({ tool: "write_file", limitRpm: 1, retryAfterMs: 5 }), 1)

describe("tool messages", () => {
  it("a failed result: its code, its error, and the next step for that code", () => {
    expect(resultText(refused)).toBe(
      "Error [RATE_LIMITED]: Rate limit of 1/min for \"write_file\" reached; retry after 5 ms\n" +
        "Wait before calling this tool again, or continue without it."
    )
    expect(resultText(Result.succeed("t", "1.0.0", "done", 1))).toBe("done")
  })

  it("malformed arguments name the tool and the JSON problem", () => {
    expect(malformedText("read_file", { text: "{", problem: "Unexpected end of JSON input" })).toBe(
      "Error [INVALID_ARGUMENTS]: the arguments of \"read_file\" are not valid JSON (Unexpected end of JSON input)\n" +
        "Send the arguments as one JSON object that matches the tool's parameters, and call it again."
    )
  })

  it("a malformed call says what is wrong with it and how to send one", () => {
    expect(malformedCallText("its id is not a string")).toBe(
      "Error [INVALID_ARGUMENTS]: this tool call is malformed and was not run: its id is not a string\n" +
        "Send each tool call with a string id, the tool's name as a string and its arguments as JSON text, and call it again."
    )
  })

  it("an escaping path is quoted back with the reason, and the model is told to stay inside", () => {
    const escape = new PathTraversalError({ path: "../etc/passwd", workspace: "/ws", reason: "leaves the workspace" })
    expect(pathTraversalText(escape)).toBe(
      "Error [PATH_TRAVERSAL]: \"../etc/passwd\" is outside the workspace (leaves the workspace)\n" +
        "Use paths inside the workspace."
    )
  })

  it("a declined confirmation, with the person's reason when there is one", () => {
    const next = "\nDo not retry this call. Ask the user how to proceed, or take another approach."
    expect(declinedText(refused, undefined)).toBe("Error [CONFIRMATION_REQUIRED]: the user declined to run \"write_file\"" + next)
    expect(declinedText(refused, "")).toBe("Error [CONFIRMATION_REQUIRED]: the user declined to run \"write_file\"" + next)
    expect(declinedText(refused, "not now")).toBe(
      "Error [CONFIRMATION_REQUIRED]: the user declined to run \"write_file\": not now" + next
    )
  })

  it("ask_user: unavailable, invalid arguments, and the answer as text", () => {
    expect(askUserUnavailableText).toBe(
      "Error [TOOL_NOT_FOUND]: \"ask_user\" is unavailable: no one can answer questions in this session\n" +
        "Continue with what you know, and state the assumptions you make."
    )
    expect(askUserInvalidText("Invalid arguments for \"ask_user\": message: missing")).toBe(
      "Error [INVALID_ARGUMENTS]: Invalid arguments for \"ask_user\": message: missing\n" +
        "Fix the arguments to match the tool's parameters and call it again."
    )
    expect(answerText("yes")).toBe("yes")
    expect(answerText(["a", "b"])).toBe("[\"a\",\"b\"]")
  })

  it("an output as text: null and a function (no JSON form) too", () => {
    expect(outputText(null)).toBe("(no output)")
    expect(outputText(() => 1)).toBe("[Function (anonymous)]")
    expect(outputText("")).toBe("")
  })
})
