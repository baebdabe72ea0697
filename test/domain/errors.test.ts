/**
 * The tagged errors: each message a caller (or a model) reads, and each stable code; finding a
 * workspace escape in a cause, as a failure, as a defect, or not at all.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Option } from "effect"
import { CallPathTraversal } from "../../src/domain/callPathTraversal.js"
import {
  ConfirmationRequired,
  InvalidArguments,
  InvalidToolDefinition,
  isPathTraversal,
  McpToolChanged,
  MemoryLimitExceeded,
  ModeBlocked,
  PathTraversalError,
  pathTraversalOf,
  PolicyVeto,
  ProtectedPath,
  RateLimited,
  ToolError,
  ToolNotFound,
  ToolTimeout
} from "../../src/domain/errors.js"

describe("error messages and codes", () => {
  it("ToolNotFound names the range and the close names only when there are some", () => {
    const bare = new ToolNotFound({ name: "reed_file", suggestions: [] })
    expect(bare.code).toBe("TOOL_NOT_FOUND")
    expect(bare.message).toBe("Tool \"reed_file\" not found")
    const full = new ToolNotFound({ name: "reed_file", versionRange: "^2", suggestions: ["read_file", "read_pdf"] })
    expect(full.message).toBe("Tool \"reed_file\" in range \"^2\" not found (did you mean: read_file, read_pdf?)")
  })

  it("InvalidArguments lists every issue, with its path when it has one", () => {
    const error = new InvalidArguments({
      tool: "t",
      issues: [{ path: ["a", 0, "b"], message: "Expected string" }, { path: [], message: "too deep" }]
    })
    expect(error.code).toBe("INVALID_ARGUMENTS")
    expect(error.message).toBe("Invalid arguments for \"t\": a.0.b: Expected string; too deep")
  })

  it("the gates' refusals", () => {
    const mode = new ModeBlocked({ tool: "write_file", mode: "explore", reason: "read-only mode" })
    expect([mode.code, mode.message]).toEqual(["MODE_BLOCKED", "Tool \"write_file\" is not allowed in mode \"explore\": read-only mode"])
    const veto = new PolicyVeto({ tool: "t", reason: "no" })
    expect([veto.code, veto.message]).toEqual(["POLICY_VETO", "Policy vetoed \"t\": no"])
    const confirm = new ConfirmationRequired({ tool: "t" })
    expect([confirm.code, confirm.message]).toEqual(["CONFIRMATION_REQUIRED", "Confirmation required"])
    expect(new ConfirmationRequired({ tool: "t", reason: "would create notes.txt" }).message)
      .toBe("Confirmation required: would create notes.txt")
  })

  it("RateLimited says whether the limit was reached or could not be checked", () => {
    const reached = new RateLimited({ tool: "t", limitRpm: 10, retryAfterMs: 6000 })
    expect(reached.code).toBe("RATE_LIMITED")
    expect(reached.message).toBe("Rate limit of 10/min for \"t\" reached; retry after 6000 ms")
    const unchecked = new RateLimited({ tool: "t", limitRpm: 10, retryAfterMs: 1000, reason: "Redis unavailable" })
    expect(unchecked.message).toBe("Rate limit of 10/min for \"t\" not checked (Redis unavailable); retry after 1000 ms")
  })

  it("the run's limits, a tool's own failure, an escape, a bad definition", () => {
    const timeout = new ToolTimeout({ tool: "t", timeoutMs: 100 })
    expect([timeout.code, timeout.message]).toEqual(["TIMEOUT", "Tool \"t\" timed out after 100 ms"])
    const memory = new MemoryLimitExceeded({ tool: "t", limitMb: 64 })
    expect([memory.code, memory.message]).toEqual(["MEMORY_LIMIT", "Tool \"t\" exceeded its memory limit of 64 MB"])
    // what the tool adds (a guest's output) follows the sentence; an empty detail adds nothing
    expect(new MemoryLimitExceeded({ tool: "t", limitMb: 64, detail: "; output before it: hi" }).message)
      .toBe("Tool \"t\" exceeded its memory limit of 64 MB; output before it: hi")
    expect(new MemoryLimitExceeded({ tool: "t", limitMb: 64, detail: "" }).message).toBe("Tool \"t\" exceeded its memory limit of 64 MB")
    const failed = new ToolError({ tool: "t", message: "it broke" })
    expect([failed.code, failed.message]).toEqual(["TOOL_ERROR", "it broke"])
    const escape = new PathTraversalError({ path: "../x", workspace: "/ws", reason: "outside" })
    expect([escape.code, escape.message]).toEqual(["PATH_TRAVERSAL", "PATH_TRAVERSAL: \"../x\" is outside the workspace /ws (outside)"])
    const git = new ProtectedPath({ tool: "write_file", path: ".git/config", component: ".git" })
    expect([git.code, git.message]).toEqual([
      "PROTECTED_PATH",
      "Tool \"write_file\" may not change \".git/config\": it is under .git, a repository's metadata, which tools only read"
    ])
    const definition = new InvalidToolDefinition({ name: "bad name", reason: "not a valid name" })
    expect(definition.message).toBe("Invalid tool definition \"bad name\": not a valid name")
    const changed = new McpToolChanged({ server: "files", tool: "read", changed: "description changed; version 2.0.0 waits for approval" })
    expect([changed.code, changed.message]).toEqual([
      "MCP_TOOL_CHANGED",
      "The MCP server \"files\" changed its tool \"read\" after it was first seen: description changed; version 2.0.0 waits for approval"
    ])
  })
})

describe("pathTraversalOf", () => {
  const escape = new PathTraversalError({ path: "../x", workspace: "/ws", reason: "outside" })

  it("finds the escape as a failure or as a defect, also inside a composed cause", () => {
    expect(Option.getOrUndefined(pathTraversalOf(Cause.fail(escape)))).toBe(escape)
    expect(Option.getOrUndefined(pathTraversalOf(Cause.die(escape)))).toBe(escape)
    const composed = Cause.combine(Cause.fail("other"), Cause.combine(Cause.interrupt(), Cause.die(escape)))
    expect(isPathTraversal(composed)).toBe(true)
  })

  it("an escape in a model's call names the call and its tool after the escape, and is still found", () => {
    const inCall = new CallPathTraversal(escape, { tool: "read_file", callId: "call\n1" })
    expect(inCall.message).toBe(
      "PATH_TRAVERSAL: \"../x\" is outside the workspace /ws (outside), in the call \"call\\n1\" of \"read_file\""
    )
    expect([inCall.tool, inCall.callId, inCall.path, inCall.code]).toEqual(["read_file", "call\n1", "../x", "PATH_TRAVERSAL"])
    expect(Option.getOrUndefined(pathTraversalOf(Cause.die(inCall)))).toBe(inCall)
  })

  it("finds nothing in other failures, defects and interruptions", () => {
    expect(pathTraversalOf(Cause.fail(new ToolError({ tool: "t", message: "x" })))._tag).toBe("None")
    expect(pathTraversalOf(Cause.die(new Error("boom")))._tag).toBe("None")
    expect(isPathTraversal(Cause.empty)).toBe(false)
    expect(isPathTraversal(Cause.fail("../x"))).toBe(false)
  })
})
