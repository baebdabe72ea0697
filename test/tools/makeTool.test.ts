/**
 * What `Tool.make` builds beyond the spec: a `WorkspacePath` the executor could not write back
 * is refused as the tool is defined; arguments past the size limits are refused with the limit
 * they broke; a handler's workspace escape and its own failures reach the executor as they are,
 * any other failure as a `ToolError` (with `details` only when it has fields); and the tool
 * carries an `outputSchema` only when it declares its `success`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Equal, Result, Schema } from "effect"
import { InvalidToolDefinition, PathTraversalError, ToolError } from "../../src/domain/errors.js"
import type { Tool } from "../../src/domain/Tool.js"
import { WorkspacePath } from "../../src/domain/WorkspacePath.js"
import { make } from "../../src/tools/define.js"
import { thrownBy } from "../helpers/thrownBy.js"

const failingWith = (failure: unknown): Tool<never> =>
  make("t", { description: "x", parameters: Schema.Struct({}), handler: () => Effect.fail(failure) })

/** The failure the executor receives from a call of `tool` without arguments. */
const failureOf = (tool: Tool<never>) => {
  const call = tool.prepare({})
  if (Result.isFailure(call)) return Effect.die(call.failure)
  return Effect.flip(call.success.run)
}

describe("Tool.make: a path the executor could not write back", () => {
  it("a WorkspacePath inside an Option is refused as the tool is defined, saying why", () => {
    const error = thrownBy(() =>
      make("opt", {
        description: "x",
        // its JSON Schema is fine (null or a string): only the decoded Option hides the path
        parameters: Schema.Struct({ p: Schema.OptionFromNullOr(WorkspacePath) }),
        handler: () => Effect.void
      })
    )
    expect(error).toBeInstanceOf(InvalidToolDefinition)
    expect(error instanceof InvalidToolDefinition && error.reason).toBe(
      "parameters: a WorkspacePath inside a Declaration is not supported: use structs, records, arrays, tuples and unions"
    )
  })
})

describe("Tool.make: arguments past the size limits", () => {
  it("are refused with the limit they broke", () => {
    const tool = make("deep", { description: "x", parameters: Schema.Struct({ v: Schema.Unknown }), handler: () => Effect.void })
    let nested: unknown = 1
    for (let i = 0; i < 70; i++) nested = { v: nested }
    const refused = tool.prepare(nested)
    if (Result.isSuccess(refused)) throw new Error("accepted arguments nested 70 deep")
    expect(refused.failure.issues).toEqual([{ path: [], message: "nested deeper than 64 levels" }])
  })
})

describe("Tool.make: a handler's failure as the executor receives it", () => {
  it.effect("a workspace escape is kept as it is", () =>
    Effect.gen(function*() {
      const escape = new PathTraversalError({ path: "../x", workspace: "/ws", reason: "outside" })
      expect(yield* failureOf(failingWith(escape))).toBe(escape)
    }))

  it.effect("the tool's own ToolError is kept as it is; another tool's becomes this tool's", () =>
    Effect.gen(function*() {
      const own = new ToolError({ tool: "t", message: "quota" })
      expect(yield* failureOf(failingWith(own))).toBe(own)
      const other = new ToolError({ tool: "u", message: "quota" })
      const wrapped = yield* failureOf(failingWith(other))
      expect(wrapped).not.toBe(other)
      expect(wrapped instanceof ToolError && wrapped.tool).toBe("t")
    }))

  it.effect("a failure without fields becomes a ToolError without details, equal to one made by hand", () =>
    Effect.gen(function*() {
      const cause = new Error("boom")
      const failure = yield* failureOf(failingWith(cause))
      expect(Equal.equals(failure, new ToolError({ tool: "t", message: "boom", cause }))).toBe(true)
      expect(Object.keys(failure)).not.toContain("details")
    }))

  it.effect("a failure with fields carries them as details", () =>
    Effect.gen(function*() {
      const cause = Object.assign(new Error("boom"), { id: 7 })
      const failure = yield* failureOf(failingWith(cause))
      expect(Equal.equals(failure, new ToolError({ tool: "t", message: "boom", cause, details: { id: 7 } }))).toBe(true)
    }))
})

describe("Tool.make: the output schema", () => {
  it("a tool that declares its success has its JSON Schema as outputSchema; one that does not has none", () => {
    const counted = make("count", {
      description: "x",
      parameters: Schema.Struct({}),
      success: Schema.Struct({ n: Schema.Number }),
      handler: () => Effect.succeed({ n: 1 })
    })
    expect(counted.outputSchema).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      required: ["n"],
      properties: { n: { type: "number" } },
      additionalProperties: false
    })
    const plain = make("plain", { description: "x", parameters: Schema.Struct({}), handler: () => Effect.void })
    expect("outputSchema" in plain).toBe(false)
  })
})
