/**
 * How much of a server's listing is taken: each input schema cheap enough to compile (a cost
 * of 500: each schema, keyword value and enum or required member counts; 64 levels), all of a
 * listing's schemas within 10,000 together. ajv turns each schema taken into code at once, so
 * this bounds the blocking work a server can cause by what it lists. Measuring a schema is
 * bounded too: no recursion, and it stops at the limit. A real server listing schemas too big
 * is in `listingLimits.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Logger } from "effect"
import type { McpTool } from "../../../src/tools/mcp/connection.js"
import { compileArgumentsValidator, MAX_SCHEMA_COST, metaSchemaSteps } from "../../../src/tools/mcp/jsonSchema.js"
import { MAX_LISTING_SCHEMA_COST, screenListing, takeListing, yieldToEventLoop } from "../../../src/tools/mcp/listingLimits.js"
import { knownOutputCheck } from "../../../src/tools/mcp/outputCheck.js"
import { makeRawTool } from "../../../src/tools/mcp/rawTool.js"
import { MAX_RAW_VALUES, MAX_SCHEMA_DEPTH } from "../../../src/tools/mcp/schemaBudget.js"
import { InvalidToolDefinition } from "../../../src/domain/errors.js"
import { costOf, nested, tooCostly } from "./listingLimitsHarness.js"

/** An object schema costing `n`: itself, its type, its additionalProperties, and n - 3 empty property schemas. */
const costing = (n: number): Record<string, unknown> => ({
  type: "object",
  additionalProperties: false,
  properties: Object.fromEntries(Array.from({ length: n - 3 }, (_, i) => [`p${i}`, {}]))
})
const tool = (name: string, inputSchema: Record<string, unknown>): McpTool => ({
  name,
  inputSchema: { ...inputSchema, type: "object" }
})

describe("budgetSchema", () => {
  it("counts each schema, keyword value and enum or required member; annotations and unknown keywords cost nothing", () => {
    expect(costOf({})).toEqual({ cost: 1, problem: undefined })
    // 1 + type + required [a, b] (3) + a (1) + its enum [1, 2, 3] (4) + b (1)
    expect(costOf({ type: "object", required: ["a", "b"], properties: { a: { enum: [1, 2, 3] }, b: true } }))
      .toEqual({ cost: 11, problem: undefined })
    expect(costOf(costing(10)).cost).toBe(10)
    const annotated = { type: "object", description: "d".repeat(10_000), examples: Array.from({ length: 5000 }, (_, i) => i), "x-vendor": { a: [1, 2] } }
    expect(costOf(annotated)).toEqual({ cost: 2, problem: undefined })
  })

  it("takes exactly maxCost; one more is a problem, found without looking further", () => {
    expect(costOf(costing(MAX_SCHEMA_COST))).toEqual({ cost: MAX_SCHEMA_COST, problem: undefined })
    expect(costOf(costing(MAX_SCHEMA_COST + 1))).toEqual({ cost: MAX_SCHEMA_COST + 1, problem: tooCostly(MAX_SCHEMA_COST) })
    // a smaller limit, as a listing's last budget gives
    expect(costOf(costing(10_000), 5)).toEqual({ cost: 6, problem: tooCostly(5) })
    expect(costOf({}, 0)).toEqual({ cost: 1, problem: tooCostly(0) })
    // a limit of one takes the schema itself
    expect(costOf({ pattern: "a" }, 2)).toEqual({ cost: 2, problem: undefined })
  })

  it("a schema of more values than MAX_RAW_VALUES is refused, whatever they are", () => {
    const wide = { type: "object", examples: Array.from({ length: MAX_RAW_VALUES }, () => 1) }
    expect(costOf(wide).problem).toBe(`it holds more than ${MAX_RAW_VALUES} values`)
  })

  it("a schema too big is refused before ajv compiles it: compileArgumentsValidator throws, makeRawTool names the tool", () => {
    expect(() => compileArgumentsValidator(costing(MAX_SCHEMA_COST + 1))).toThrow(
      `the schema cannot be checked here: ${tooCostly(MAX_SCHEMA_COST)}`
    )
    expect(compileArgumentsValidator(costing(MAX_SCHEMA_COST)).validate({ p0: 1 })).toBeUndefined()
    // additionalProperties: false is added before the cost is counted
    expect(() => compileArgumentsValidator({ type: "object", properties: costing(MAX_SCHEMA_COST + 1).properties })).toThrow(tooCostly(MAX_SCHEMA_COST))
    const make = () => makeRawTool("deep", { description: "", parameters: nested(100), handler: () => Effect.void })
    expect(make).toThrow(InvalidToolDefinition)
    expect(make).toThrow(`parameters: the schema cannot be checked here: it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`)
  })
})

describe("screenListing", () => {
  const together = `the input and output schemas of the server's tools cost more than ${MAX_LISTING_SCHEMA_COST} to compile together`
  const full = Array.from({ length: MAX_LISTING_SCHEMA_COST / MAX_SCHEMA_COST }, (_, i) => tool(`t${i}`, costing(MAX_SCHEMA_COST)))

  it("takes the tools in order while their schemas fit the listing's budget; a later one that fits is still taken", () => {
    const { leftOut, taken } = screenListing([...full, tool("over", costing(2)), tool("alone", costing(MAX_SCHEMA_COST + 1))])
    expect(taken.map((t) => t.name)).toEqual(full.map((t) => t.name))
    expect(leftOut).toEqual([{ tool: "over", reason: together }, { tool: "alone", reason: together }])
    // all but the last full one, and one costing 495 taken: 5 left, too few for 6, enough for 5
    const most = full.slice(0, -1)
    const room = screenListing([...most, tool("a", costing(MAX_SCHEMA_COST - 5)), tool("b", costing(6)), tool("c", costing(5))])
    expect(room.taken.map((t) => t.name)).toEqual([...most.map((t) => t.name), "a", "c"])
    expect(room.leftOut.map((t) => t.tool)).toEqual(["b"])
  })

  it("a schema too deep is left out for its depth, also when the budget left is about its size", () => {
    const tooDeep = nested(MAX_SCHEMA_DEPTH + 1)
    const most = full.slice(0, -1)
    // the too-deep schema would cost 66 (with its type and additionalProperties), as much as is left
    const { leftOut } = screenListing([tool("deep", tooDeep), ...most, tool("filler", costing(MAX_SCHEMA_COST - 66)), tool("deep2", tooDeep)])
    const depth = `its input schema cannot be checked here: it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`
    expect(leftOut).toEqual([{ tool: "deep", reason: depth }, { tool: "deep2", reason: depth }])
  })

  it("a schema too big on its own is left out with its own reason, and costs the budget nothing", () => {
    const { leftOut, taken } = screenListing([tool("wide", costing(MAX_SCHEMA_COST + 1)), tool("ok", costing(3))])
    expect(taken.map((t) => t.name)).toEqual(["ok"])
    expect(leftOut).toEqual([{ tool: "wide", reason: `its input schema cannot be checked here: ${tooCostly(MAX_SCHEMA_COST)}` }])
    const all = screenListing([tool("wide", costing(MAX_SCHEMA_COST + 1)), ...full])
    expect(all.taken).toEqual(full)
    // nothing left of the budget: the smallest schema is left out
    expect(screenListing([...full, tool("tiny", {})]).leftOut.map((t) => t.tool)).toEqual(["tiny"])
  })

  it("names what a taken tool leaves to its server", () => {
    const big = tool("big", { properties: { e: { enum: Array.from({ length: 101 }, (_, i) => i) } } })
    expect(screenListing([big]).simplified).toEqual([{ tool: "big", parts: ["/properties/e/enum: an enum of 101 members (only its type is checked)"] }])
  })
})

describe("output schemas in a listing", () => {
  const withOutput = (name: string, outputSchema: Record<string, unknown>, inputSchema = costing(3)): McpTool => ({
    name,
    inputSchema: { ...inputSchema, type: "object" },
    outputSchema: { ...outputSchema, type: "object" }
  })

  it("an output schema is screened as an input one, and counts against the listing's budget with it", () => {
    const full = Array.from({ length: MAX_LISTING_SCHEMA_COST / MAX_SCHEMA_COST - 1 }, (_, i) => tool(`t${i}`, costing(MAX_SCHEMA_COST)))
    const { leftOut, taken } = screenListing([
      withOutput("wide", costing(MAX_SCHEMA_COST + 1)),
      ...full,
      withOutput("both", costing(250), costing(250)),
      withOutput("over", costing(3), {})
    ])
    expect(taken.map((t) => t.name)).toEqual([...full.map((t) => t.name), "both"])
    expect(leftOut).toEqual([
      { tool: "wide", reason: `its output schema cannot be checked here: ${tooCostly(MAX_SCHEMA_COST)}` },
      { tool: "over", reason: `the input and output schemas of the server's tools cost more than ${MAX_LISTING_SCHEMA_COST} to compile together` }
    ])
    // what of an output schema is not checked is named as the output's
    const big = withOutput("big", { properties: { e: { enum: Array.from({ length: 101 }, (_, i) => i) } } })
    expect(screenListing([big]).simplified).toEqual([
      { tool: "big", parts: ["output schema /properties/e/enum: an enum of 101 members (only its type is checked)"] }
    ])
  })

  // no clock: takeListing yields to the event loop by setImmediate between compiles
  it.effect("takeListing compiles each output schema taken; one that does not compile leaves its tool out, with a warning", () =>
    Effect.gen(function*() {
      const logs: Array<string> = []
      const capture = Logger.layer([Logger.make(({ message }) => logs.push(String(message)))])
      const fine = withOutput("fine", { properties: { n: { type: "number" } } })
      const broken = withOutput("broken", { properties: { n: { type: "bogus" } } })
      const taken = yield* takeListing("s", [broken, fine]).pipe(Effect.provide(capture))
      expect(taken).toEqual([fine])
      expect(logs).toHaveLength(1)
      expect(logs[0]).toMatch(/^MCP server "s": tool "broken" skipped: its output schema cannot be checked here: schema is invalid: /)
      const check = fine.outputSchema === undefined ? undefined : knownOutputCheck(fine.outputSchema)
      expect(check !== undefined && Result.isSuccess(check) && check.success.validate({ n: "1" })).toEqual([
        { path: ["n"], message: "must be number" }
      ])
    }))
})

describe("what screening a listing leaves to the compile", () => {
  it("a taken tool's schema is measured once: its compile takes the budget the screening found", () => {
    let reads = 0
    // each walk over the schema reads this property once
    const properties = Object.defineProperty({}, "a", {
      enumerable: true,
      get: () => {
        reads += 1
        return { type: "string" }
      }
    })
    const counted = tool("counted", { properties })
    expect(screenListing([counted]).taken).toEqual([counted])
    const screening = reads
    expect(screening).toBeGreaterThan(0)
    expect(compileArgumentsValidator(counted.inputSchema).validate({ a: 1 })).toEqual([{ path: ["a"], message: "must be string" }])
    expect(reads).toBe(screening)
    // taken once: a later compile measures the schema again
    compileArgumentsValidator(counted.inputSchema)
    expect(reads).toBeGreaterThan(screening)
  })

  // no clock: the turns counted are event-loop turns (setImmediate), which run under a TestClock too
  it.effect("takeListing compiles the meta-schemas of a taken tool's draft one per turn, before the tool's compile needs them", () =>
    Effect.gen(function*() {
      const schema = { $schema: "https://json-schema.org/draft/2019-09/schema", type: "object" } as const
      // 2019-09: six vocabularies and the draft's own meta-schema, unless a test before this one
      // (in this worker's module graph) compiled them
      const steps = metaSchemaSteps(schema).length
      expect([0, 7]).toContain(steps)
      let turns = 0
      let counting = true
      const count = () => {
        turns += 1
        if (counting) setImmediate(count)
      }
      setImmediate(count)
      const taken = yield* takeListing("s", [{ name: "t", inputSchema: schema }]).pipe(Effect.ensuring(Effect.sync(() => (counting = false))))
      expect(taken.map((t) => t.name)).toEqual(["t"])
      expect(metaSchemaSteps(schema)).toEqual([])
      expect(turns).toBeGreaterThanOrEqual(steps)
    }))
})

describe("yieldToEventLoop", () => {
  it("lets a due timer run, also when it is entered from a timer (where one immediate would run before any timer)", async () => {
    const order = await new Promise<Array<string>>((resolve) => {
      setTimeout(() => {
        const seen: Array<string> = []
        setTimeout(() => seen.push("timer"), 1)
        // the timer is due before the yield ends
        const due = performance.now() + 5
        while (performance.now() < due);
        void Effect.runPromise(yieldToEventLoop).then(() => {
          seen.push("yielded")
          resolve(seen)
        })
      }, 0)
    })
    expect(order).toEqual(["timer", "yielded"])
  })
})
