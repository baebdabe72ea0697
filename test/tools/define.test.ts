/**
 * What `Tool.make` checks and fills in for a tool a user writes: the timeout and rate limit
 * must be positive, the flags default to off, a tool without parameters names each property it
 * was given, and any failure of a handler becomes a readable message (never empty, cut when
 * long) with its JSON fields as details.
 */
import { describe, expect, it } from "@effect/vitest"
import { Data, Effect, Result, Schema } from "effect"
import { InvalidToolDefinition, MemoryLimitExceeded, ToolError, ToolTimeout } from "../../src/domain/errors.js"
import { WorkspacePath } from "../../src/domain/WorkspacePath.js"
import { make } from "../../src/tools/define.js"
import parse from "semver/functions/parse.js"
import { definitionProblem, detailsOf, isOwnFailure, messageOf } from "../../src/tools/definition.js"

const basics = { name: "t", version: "1.0.0", timeoutMs: undefined, rateLimitRpm: undefined }

const definitionError = (f: () => unknown): string | undefined => {
  try {
    f()
    return undefined
  } catch (error) {
    return error instanceof InvalidToolDefinition ? error.reason : String(error)
  }
}

const noop = (timeout: "none" | number, rateLimitRpm?: number) =>
  make("t", {
    description: "x",
    parameters: Schema.Struct({}),
    timeout: timeout === "none" ? "none" : `${timeout} millis`,
    ...(rateLimitRpm === undefined ? {} : { rateLimitRpm }),
    handler: () => Effect.void
  })

describe("definitionProblem", () => {
  it("a timeout and a rate limit must be positive (zero and NaN are not)", () => {
    expect(definitionProblem({ ...basics, timeoutMs: 1 })).toBeUndefined()
    expect(definitionProblem({ ...basics, rateLimitRpm: 1 })).toBeUndefined()
    for (const timeoutMs of [0, -5, Number.NaN]) {
      expect(definitionProblem({ ...basics, timeoutMs })).toBe("the timeout must be positive")
    }
    for (const rateLimitRpm of [0, -1, Number.NaN]) {
      expect(definitionProblem({ ...basics, rateLimitRpm })).toBe("rateLimitRpm must be positive")
    }
  })

  it("Tool.make throws InvalidToolDefinition for them; no timeout at all is fine", () => {
    expect(definitionError(() => noop(0))).toBe("the timeout must be positive")
    expect(definitionError(() => noop(1000, 0))).toBe("rateLimitRpm must be positive")
    expect(definitionError(() => noop("none"))).toBeUndefined()
    expect(noop("none").timeoutMs).toBeUndefined()
  })
})

describe("Tool.make defaults", () => {
  it("not read-only, no tags, not a scoped write, unless the options say so", () => {
    const plain = noop(1000)
    expect([plain.spec.readOnly, plain.tags, plain.scopedWrite, plain.requiresConfirmation]).toEqual([false, [], false, false])
    const flagged = make("f", {
      description: "x",
      parameters: Schema.Struct({ a: Schema.String, b: Schema.optional(Schema.Number) }),
      readOnly: true,
      tags: ["io"],
      scopedWrite: true,
      handler: () => Effect.void
    })
    expect([flagged.spec.readOnly, flagged.tags, flagged.scopedWrite]).toEqual([true, ["io"], true])
    expect(flagged.spec.required).toEqual(["a"])
  })

  it("a tool without parameters names each property it is given (at most 20); none is fine", () => {
    const tool = noop(1000)
    expect(Result.isSuccess(tool.prepare({}))).toBe(true)
    expect(Result.isSuccess(tool.prepare(undefined))).toBe(true)
    const extra = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i]))
    const refused = tool.prepare(extra)
    if (Result.isSuccess(refused)) throw new Error("accepted unknown properties")
    expect(refused.failure.issues).toHaveLength(20)
    expect(refused.failure.issues[0]).toEqual({ path: ["k0"], message: "unknown property; this tool takes no arguments" })
    // a tool with parameters reports an unknown property through its Schema
    const withOne = make("w", { description: "x", parameters: Schema.Struct({ a: Schema.String }), handler: () => Effect.void })
    const one = withOne.prepare({ a: "x", b: 1 })
    expect(Result.isFailure(one) && one.failure.issues.map((i) => i.path)).toEqual([["b"]])
    expect(Result.isSuccess(withOne.prepare({ a: "x" }))).toBe(true)
  })

  it("a tool whose parameters are only an index signature takes any key its Schema takes", () => {
    // no named property, as in `Schema.Struct({})`, but `additionalProperties` is a schema, not false
    const labels = make("labels", {
      description: "x",
      parameters: Schema.StructWithRest(Schema.Struct({}), [Schema.Record(Schema.String, Schema.Number)]),
      handler: (args) => Effect.succeed(args)
    })
    expect(labels.spec.parameters.additionalProperties).toEqual({ type: "number" })
    expect(Result.isSuccess(labels.prepare({ a: 1, b: 2 }))).toBe(true)
    const wrong = labels.prepare({ a: "one" })
    expect(Result.isFailure(wrong) && wrong.failure.issues.map((i) => i.path)).toEqual([["a"]])
  })

  it("a call's WorkspacePath values are located, at any depth, for the resolver and the mode gate", () => {
    const copy = make("copy", {
      description: "x",
      parameters: Schema.Struct({ from: WorkspacePath, to: Schema.Array(Schema.Struct({ path: WorkspacePath })), note: Schema.String }),
      handler: () => Effect.void
    })
    expect(copy.pathFields).toEqual(["from", "to"])
    const call = copy.prepare({ from: "a.txt", to: [{ path: "b/c.txt" }, { path: "d.txt" }], note: "n" })
    if (Result.isFailure(call)) throw call.failure
    expect(call.success.paths.map((slot) => slot.raw)).toEqual(["a.txt", "b/c.txt", "d.txt"])
  })
})

class NotFound extends Data.TaggedError("NotFound")<{ readonly id: string; readonly tries: number }> {}
class Quiet extends Error {
  override name = "QuietError"
}

describe("versions", () => {
  it("a version is semver exactly as semver writes it: build metadata and pre-releases kept, no prefix or padding", () => {
    for (const version of ["1.0.0", "0.2.3-beta.1", "1.0.0+build.5", "2.1.0-rc.1+sha.abc"]) {
      expect(definitionProblem({ ...basics, version })).toBeUndefined()
    }
    for (const version of ["v1.0.0", "=1.0.0", " 1.0.0", "1.0.0 ", "1.0", "01.0.0", "latest"]) {
      expect(definitionProblem({ ...basics, version })).toBe(`"${version}" is not a semver version`)
    }
  })

  it("plain MAJOR.MINOR.PATCH versions (taken without semver's parse) are judged as semver judges them", () => {
    const cases = [
      "0.0.0", "10.20.30", "1.0.00", "1.00.0", "00.1.1", "1.0.0.0", "1..0", "-1.0.0", "1.0.0\n", "1.0.0\u0660",
      // semver refuses a number past Number.MAX_SAFE_INTEGER
      "999999999999999.0.0", "9007199254740991.0.0", "9007199254740992.0.0", "1.99999999999999999.0"
    ]
    for (const version of cases) {
      const parsed = parse(version)
      const canonical = parsed !== null && parsed.format() === version
      expect(definitionProblem({ ...basics, version }), version).toBe(
        canonical ? undefined : `"${version}" is not a semver version`
      )
    }
    expect(definitionProblem({ ...basics, version: "9007199254740991.0.0" })).toBeUndefined()
    expect(definitionProblem({ ...basics, version: "9007199254740992.0.0" })).toBeDefined()
  })
})

describe("messageOf and detailsOf: a handler's failure, readable", () => {
  it("a failure's own message; else its tag (or class name) and JSON fields; never empty", () => {
    expect(messageOf(new Error("boom"))).toBe("boom")
    expect(messageOf(new NotFound({ id: "42", tries: 2 }))).toBe(`NotFound (id: "42", tries: 2)`)
    expect(messageOf(new Quiet(""))).toBe("QuietError")
    expect(messageOf({ message: "   " })).toBe("Error")
    expect(messageOf("plain text")).toBe("plain text")
    expect(messageOf("")).toBe("the tool failed without a message")
    expect(messageOf("  \n ")).toBe("the tool failed without a message")
    expect(messageOf(undefined)).toBe("undefined")
    // a tagged failure that is no Error: its tag names it
    expect(messageOf({ _tag: "Missing", id: "7" })).toBe(`Missing (id: "7")`)
    expect(messageOf({ id: "7" })).toBe(`Error (id: "7")`)
  })

  it("a message made from long fields is cut at 500 characters", () => {
    const text = messageOf(new NotFound({ id: "x".repeat(1000), tries: 1 }))
    expect(text).toHaveLength(500)
    expect(text.endsWith("…")).toBe(true)
    expect(text.startsWith(`NotFound (id: "xxx`)).toBe(true)
    // exactly at the bound: whole
    const exact = messageOf(new NotFound({ id: "y".repeat(500 - `NotFound (id: "", tries: 1)`.length), tries: 1 }))
    expect(exact).toHaveLength(500)
    expect(exact.endsWith(")")).toBe(true)
  })

  it("details: the fields only (not tag, message, stack, cause), a bigint or cycle readable, a too large one left out", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const error = Object.assign(new NotFound({ id: "1", tries: 3 }), {
      cyclic,
      big: BigInt(1),
      huge: "z".repeat(20_000),
      nested: { ok: [1, 2] }
    })
    expect(detailsOf(error)).toEqual({ id: "1", tries: 3, cyclic: { self: "[Circular]" }, big: "1n", nested: { ok: [1, 2] } })
    expect(detailsOf(Object.assign(new Error("m"), { big: BigInt(2) }))).toEqual({ big: "2n" })
    expect(detailsOf(new Error("m"))).toBeUndefined()
    expect(detailsOf("text")).toBeUndefined()
    // a field whose JSON is exactly at the bound is kept
    expect(detailsOf({ s: "a".repeat(16_382) })).toEqual({ s: "a".repeat(16_382) })
  })

  it("a ToolError, ToolTimeout or MemoryLimitExceeded is the tool's own only when it names the tool", () => {
    for (const own of [
      new ToolError({ tool: "a", message: "m" }),
      new ToolTimeout({ tool: "a", timeoutMs: 5 }),
      new MemoryLimitExceeded({ tool: "a", limitMb: 1 })
    ]) {
      expect(isOwnFailure("a", own)).toBe(true)
      expect(isOwnFailure("b", own)).toBe(false)
    }
    expect(isOwnFailure("a", new Error("m"))).toBe(false)
  })
})
