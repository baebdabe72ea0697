/**
 * A model's tool calls read as they came (`readCalls.ts`), before anything runs: which calls a turn
 * holds (a list, one bare call, none), the id each is answered under (its own, or a derived one
 * made unique among the turn's ids), the name, input and `strictArguments` of a call, and the exact
 * words of what is wrong with a malformed one (each kind of value named as the model reads it).
 * test/layers/malformedCalls.test.ts checks the same through a session that answers the calls.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { derivedId, readAnthropicCalls, readOpenAICalls } from "../../src/domain/readCalls.js"
import { parseArguments } from "../../src/domain/toolCalls.js"

const call = (id: unknown, name: unknown = "read_file", args: unknown = "{\"a\":1}") => ({
  id,
  type: "function",
  function: { name, arguments: args }
})

const rejected = (id: string, name: string, malformed: string, strictArguments = false) => ({
  id,
  name,
  input: Result.succeed({}),
  strictArguments,
  malformed
})

describe("readOpenAICalls", () => {
  it("reads well-formed calls with their parsed arguments and the strictness given", () => {
    expect(readOpenAICalls([call("c1"), call("c2", "write_file", "")], true)).toStrictEqual([
      { id: "c1", name: "read_file", input: Result.succeed({ a: 1 }), strictArguments: true },
      { id: "c2", name: "write_file", input: Result.succeed({}), strictArguments: true }
    ])
    const [bad] = readOpenAICalls([call("c3", "read_file", "{oops")], false)
    expect(bad).toStrictEqual({ id: "c3", name: "read_file", input: parseArguments("{oops"), strictArguments: false })
  })

  it("holds no calls for undefined or null, and one for a call sent bare", () => {
    expect(readOpenAICalls(undefined, false)).toStrictEqual([])
    expect(readOpenAICalls(null, false)).toStrictEqual([])
    expect(readOpenAICalls([], false)).toStrictEqual([])
    expect(readOpenAICalls(call("bare"), false)).toStrictEqual([
      { id: "bare", name: "read_file", input: Result.succeed({ a: 1 }), strictArguments: false }
    ])
  })

  it("answers tool calls that are no list, no call and no nothing once, under the first derived id", () => {
    const cases: Array<[unknown, string]> = [
      ["read_file", "a string"],
      [3, "a number"],
      [true, "a boolean"],
      [1n, "a bigint"],
      [Symbol("s"), "a symbol"],
      [() => 1, "a function"]
    ]
    for (const [value, kind] of cases) {
      expect(readOpenAICalls(value, true)).toStrictEqual([
        rejected("malformed_call_0", "", `the tool calls are ${kind}, not a list of calls`, true)
      ])
    }
  })

  it("names what a call that is not an object is, and answers it under its position's id", () => {
    expect(readOpenAICalls([null, [call("x")], "text", 4, undefined], false)).toStrictEqual([
      rejected("malformed_call_0", "", "the call is null, not an object; it is answered under the id \"malformed_call_0\""),
      rejected("malformed_call_1", "", "the call is an array, not an object; it is answered under the id \"malformed_call_1\""),
      rejected("malformed_call_2", "", "the call is a string, not an object; it is answered under the id \"malformed_call_2\""),
      rejected("malformed_call_3", "", "the call is a number, not an object; it is answered under the id \"malformed_call_3\""),
      rejected("malformed_call_4", "", "the call is missing, not an object; it is answered under the id \"malformed_call_4\"")
    ])
  })

  it("says what is wrong with a call's function, name and arguments, all of it at once", () => {
    expect(readOpenAICalls([
      { id: "f1" },
      { id: "f2", function: "read_file" },
      { id: "f3", function: ["read_file"] },
      call("n1", 42),
      call("a1", "read_file", { a: 1 }),
      { id: "b1", function: { name: null } }
    ], false)).toStrictEqual([
      rejected("f1", "", "its \"function\" is missing, not an object with a name and arguments"),
      rejected("f2", "", "its \"function\" is a string, not an object with a name and arguments"),
      rejected("f3", "", "its \"function\" is an array, not an object with a name and arguments"),
      rejected("n1", "", "its function name is a number, not a string"),
      rejected("a1", "read_file", "its arguments are an object, not JSON text"),
      rejected("b1", "", "its function name is null, not a string; its arguments are missing, not JSON text")
    ])
  })

  it("answers a call with no string id under a derived one, and joins that with its other problems", () => {
    expect(readOpenAICalls([call("ok"), call(7), { id: { x: 1 } }], true)).toStrictEqual([
      { id: "ok", name: "read_file", input: Result.succeed({ a: 1 }), strictArguments: true },
      rejected("malformed_call_1", "read_file", "its id is a number, not a string; it is answered under the id \"malformed_call_1\"", true),
      rejected(
        "malformed_call_2",
        "",
        "its id is an object, not a string; it is answered under the id \"malformed_call_2\"; its \"function\" is missing, not an object with a name and arguments",
        true
      )
    ])
  })

  it("makes a derived id unique among the ids the turn already used", () => {
    expect(derivedId(3)).toBe("malformed_call_3")
    const ids = readOpenAICalls([call("malformed_call_1"), call(undefined), call("malformed_call_1_"), call(null), "x"], false)
      .map((c) => c.id)
    // the call at 1 finds its id taken and appends "_"; the one at 3 is free; the one at 4 free too
    expect(ids).toEqual(["malformed_call_1", "malformed_call_1_", "malformed_call_1_", "malformed_call_3", "malformed_call_4"])
    const chain = readOpenAICalls([call("malformed_call_2"), call("malformed_call_2_"), call(0)], false).map((c) => c.id)
    expect(chain).toEqual(["malformed_call_2", "malformed_call_2_", "malformed_call_2__"])
  })

  it("runs only the first of calls that share an id, and shows the id escaped and cut", () => {
    expect(readOpenAICalls([call("same"), call("same", "write_file")], false)).toStrictEqual([
      { id: "same", name: "read_file", input: Result.succeed({ a: 1 }), strictArguments: false },
      rejected("same", "write_file", "another call of this turn has the same id \"same\", and only the first one runs")
    ])
    const long = `${"i".repeat(100)}\n${"j".repeat(9)}`
    const [, second] = readOpenAICalls([call(long), call(long)], false)
    expect(second?.id).toBe(long)
    expect(second?.malformed).toBe(
      `another call of this turn has the same id "${"i".repeat(100)}… (cut: showing 100 of 110 characters)", and only the first one runs`
    )
    const [, hidden] = readOpenAICalls([call("a\u202eb"), call("a\u202eb")], false)
    expect(hidden?.malformed).toContain("the same id \"a\\u202Eb\"")
  })
})

describe("readAnthropicCalls", () => {
  const use = (id: unknown, name: unknown = "read_file", input: unknown = { a: 1 }) => ({ type: "tool_use", id, name, input })

  it("reads the tool_use blocks and skips every other block", () => {
    expect(readAnthropicCalls([
      { type: "text", text: "Reading." },
      use("u1"),
      null,
      "loose text",
      { type: "tool_result", id: "r" },
      use("u2", "list_files", [])
    ])).toStrictEqual([
      { id: "u1", name: "read_file", input: Result.succeed({ a: 1 }), strictArguments: false },
      { id: "u2", name: "list_files", input: Result.succeed([]), strictArguments: false }
    ])
  })

  it("holds no calls for text content or nothing, and one for a block sent bare", () => {
    expect(readAnthropicCalls("just text")).toStrictEqual([])
    expect(readAnthropicCalls(undefined)).toStrictEqual([])
    expect(readAnthropicCalls(null)).toStrictEqual([])
    expect(readAnthropicCalls(use("bare"))).toStrictEqual([
      { id: "bare", name: "read_file", input: Result.succeed({ a: 1 }), strictArguments: false }
    ])
  })

  it("says what is wrong with a block's id, name and input, deriving the id from the block's position", () => {
    expect(readAnthropicCalls([
      { type: "text", text: "first" },
      use(5),
      use("n", ["read_file"]),
      { type: "tool_use", id: "i1", name: "read_file" },
      use("i2", "read_file", null),
      { type: "tool_use", input: null }
    ])).toStrictEqual([
      rejected("malformed_call_1", "read_file", "its id is a number, not a string; it is answered under the id \"malformed_call_1\""),
      rejected("n", "", "its name is an array, not a string"),
      rejected("i1", "read_file", "its input is missing, not an object"),
      rejected("i2", "read_file", "its input is null, not an object"),
      rejected(
        "malformed_call_5",
        "",
        "its id is missing, not a string; it is answered under the id \"malformed_call_5\"; its name is missing, not a string; its input is null, not an object"
      )
    ])
  })

  it("takes any input that is there, and runs only the first of blocks that share an id", () => {
    expect(readAnthropicCalls([use("u", "read_file", 0), use("u", "read_file", "")])).toStrictEqual([
      { id: "u", name: "read_file", input: Result.succeed(0), strictArguments: false },
      rejected("u", "read_file", "another call of this turn has the same id \"u\", and only the first one runs")
    ])
  })
})
