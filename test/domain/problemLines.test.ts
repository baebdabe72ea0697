/**
 * What a model is sent and reads back stays as it was on Effect 3: a tool-like schema written in
 * Effect 4 Schema gives the JSON Schema (key order included) and the argument problem lines the
 * Effect 3 line (tag effect3) gives for its Effect 3 twin (the expectations are its output): one line
 * per union member that did not match, a discriminator's own line, an array's length checked
 * after its items.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { argumentParseOptions, issuesOf } from "../../src/domain/argumentLimits.js"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"
import { defaultPath, WorkspacePath } from "../../src/domain/WorkspacePath.js"

const lines = (schema: Schema.Codec<unknown, unknown>, input: unknown) => {
  const decoded = Schema.decodeUnknownResult(schema, argumentParseOptions)(input)
  return Result.isSuccess(decoded) ? "decoded" : issuesOf(decoded.failure).map((i) => `${i.path.join(".")}: ${i.message}`)
}

const Search = Schema.Struct({
  pattern: Schema.String.check(Schema.isMinLength(1)).annotate({ description: "The text" }),
  directory: WorkspacePath.annotate({ description: "Directory" }).pipe(Schema.withDecodingDefaultType(Effect.sync(defaultPath(".")))),
  glob: Schema.optional(Schema.String.check(Schema.isMinLength(1)).annotate({ description: "Glob" })),
  regex: Schema.Boolean.annotate({ description: "Regex" }).pipe(Schema.withDecodingDefaultType(Effect.succeed(false))),
  max_results: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 50 })).annotate({ description: "Most (1 to 50)" }).pipe(
    Schema.withDecodingDefaultType(Effect.succeed(20))
  )
})

describe("as on Effect 3", () => {
  it("a tool's parameters: the same JSON Schema, key for key, and the same problem lines", () => {
    expect(JSON.stringify(parametersJsonSchema(Search))).toBe(
      "{\"type\":\"object\",\"required\":[\"pattern\"],\"properties\":{\"pattern\":{\"type\":\"string\",\"description\":\"The text\",\"minLength\":1}," +
        "\"directory\":{\"type\":\"string\",\"description\":\"Directory\",\"default\":\".\"},\"glob\":{\"type\":\"string\",\"description\":\"Glob\",\"minLength\":1}," +
        "\"regex\":{\"type\":\"boolean\",\"description\":\"Regex\",\"default\":false}," +
        "\"max_results\":{\"description\":\"Most (1 to 50)\",\"type\":\"integer\",\"minimum\":1,\"maximum\":50,\"default\":20}},\"additionalProperties\":false}"
    )
    expect(lines(Search, { pattern: 1, directory: 2, glob: "", regex: "x", max_results: 0 })).toEqual([
      "pattern: Expected string, actual 1",
      "directory: Expected a path (a string), actual 2",
      "directory: Expected undefined, actual 2",
      "glob: Expected Glob, actual \"\"",
      "glob: Expected undefined, actual \"\"",
      "regex: Expected boolean, actual \"x\"",
      "regex: Expected undefined, actual \"x\"",
      "max_results: Expected Most (1 to 50), actual 0",
      "max_results: Expected undefined, actual 0"
    ])
    expect(lines(Search, { pattern: "a", max_results: 1.5 })).toEqual([
      "max_results: Expected an integer, actual 1.5",
      "max_results: Expected undefined, actual 1.5"
    ])
    expect(lines(Search, null)).toEqual([": Expected Struct (Encoded side), actual null"])
    expect(lines(Search, { pattern: "a", extra: 1 })).toEqual([
      "extra: unknown property; expected one of: \"pattern\" | \"directory\" | \"glob\" | \"regex\" | \"max_results\""
    ])
  })

  it("a union: by its discriminator when it has one, else member by member", () => {
    const union = Schema.Struct({
      a: Schema.Union([
        Schema.Struct({ type: Schema.Literal("a"), x: Schema.Number }),
        Schema.Struct({ type: Schema.Literal("b"), y: Schema.String }),
        Schema.String
      ])
    })
    expect(lines(union, { a: 5 })).toEqual([
      "a: Expected { readonly type: \"a\"; readonly x: number } | { readonly type: \"b\"; readonly y: string }, actual 5",
      "a: Expected string, actual 5"
    ])
    expect(lines(union, { a: { type: "c" } })).toEqual([
      "a.type: Expected \"a\" | \"b\", actual \"c\"",
      "a: Expected string, actual {\"type\":\"c\"}"
    ])
    expect(lines(Schema.Struct({ mode: Schema.Literals(["fast", "thorough"]) }), { mode: "slow" })).toEqual([
      "mode: Expected \"fast\", actual \"slow\"",
      "mode: Expected \"thorough\", actual \"slow\""
    ])
  })

  it("an array: its items' problems, then its length; a struct's type written with its checks", () => {
    const headers = Schema.Struct({
      headers: Schema.Array(Schema.Struct({
        name: Schema.String.check(Schema.isMinLength(1)),
        value: Schema.String.check(Schema.isMaxLength(8)).annotate({ description: "The value" })
      })).check(Schema.isMaxLength(2))
    })
    expect(lines(headers, { headers: [{ name: "a", value: 1 }, "b", { name: "", value: "v" }] })).toEqual([
      "headers.0.value: Expected string, actual 1",
      "headers.1: Expected { readonly name: minLength(1); readonly value: maxLength(8) }, actual \"b\"",
      "headers.2.name: Expected a string at least 1 character(s) long, actual \"\"",
      "headers: Expected an array of at most 2 item(s), actual [{\"name\":\"a\",\"value\":1},\"b\",{\"name\":\"\",\"value\":\"v\"}]"
    ])
  })

  it("a template literal: the template expected, for a string it refuses and for a value of another type", () => {
    // Effect 3 parsed a template literal as one refinement of string (a Type issue on the node);
    // Effect 4 reports a mismatch as a Composite of the node holding an InvalidValue ("Invalid data")
    const id = Schema.Struct({ id: Schema.TemplateLiteral(["user-", Schema.Number]) })
    expect(lines(id, { id: "user-x" })).toEqual(["id: Expected `user-${number}`, actual \"user-x\""])
    expect(lines(id, { id: 5 })).toEqual(["id: Expected `user-${number}`, actual 5"])
    expect(lines(id, { id: "user-12" })).toBe("decoded")
  })
})
