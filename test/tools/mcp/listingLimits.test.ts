/**
 * How much of a server's listing is taken: each input schema small enough to compile (2,000
 * objects and arrays, 64 levels), all of a listing's schemas within 20,000 together. ajv turns
 * each schema taken into code at once, so this bounds the blocking work a server can cause by
 * what it lists. Measuring a schema is bounded too: no recursion, and it stops at the limit.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import type { McpTool } from "../../../src/tools/mcp/connection.js"
import {
  compileArgumentsValidator,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  schemaSize
} from "../../../src/tools/mcp/jsonSchema.js"
import { MAX_LISTING_SCHEMA_NODES, screenListing } from "../../../src/tools/mcp/listingLimits.js"
import { makeRawTool } from "../../../src/tools/mcp/rawTool.js"
import { InvalidToolDefinition } from "../../../src/domain/errors.js"
import { tempDir } from "../../helpers/tempDir.js"
import { nodeServer, openBridged } from "./helpers.js"

/** An object schema of `n` objects: itself, its `properties`, and n - 2 empty property schemas. */
const withNodes = (n: number): Record<string, unknown> => ({
  type: "object",
  properties: Object.fromEntries(Array.from({ length: n - 2 }, (_, i) => [`p${i}`, {}]))
})
/** `levels` objects, each the only property of the one before (two objects a level). */
const nested = (levels: number): Record<string, unknown> => {
  let schema: Record<string, unknown> = { type: "string" }
  for (let i = 1; i < levels; i++) schema = { a: schema }
  return schema
}
const tool = (name: string, inputSchema: Record<string, unknown>): McpTool => ({
  name,
  inputSchema: { ...inputSchema, type: "object" }
})

describe("schemaSize", () => {
  it("counts objects and arrays, the schema itself included; other values are not counted", () => {
    expect(schemaSize({})).toEqual({ nodes: 1, problem: undefined })
    expect(schemaSize({ type: "object", required: ["a", "b"], properties: { a: { enum: [1, 2, 3] }, b: true } }))
      .toEqual({ nodes: 5, problem: undefined })
    expect(schemaSize(withNodes(10)).nodes).toBe(10)
  })

  it("takes exactly maxNodes; one more is a problem, found without looking further", () => {
    expect(schemaSize(withNodes(MAX_SCHEMA_NODES))).toEqual({ nodes: MAX_SCHEMA_NODES, problem: undefined })
    expect(schemaSize(withNodes(MAX_SCHEMA_NODES + 1))).toEqual({
      nodes: MAX_SCHEMA_NODES + 1,
      problem: `it holds more than ${MAX_SCHEMA_NODES} objects and arrays`
    })
    // a smaller limit, as a listing's last budget gives
    expect(schemaSize(withNodes(100_000), 5)).toEqual({ nodes: 6, problem: "it holds more than 5 objects and arrays" })
    expect(schemaSize({}, 0)).toEqual({ nodes: 1, problem: "it holds more than 0 objects and arrays" })
    expect(schemaSize("not an object")).toEqual({ nodes: 0, problem: undefined })
    // a limit of one takes the schema itself
    expect(schemaSize({ type: "string" }, 1)).toEqual({ nodes: 1, problem: undefined })
    // null is a value, not an object (and is never looked into)
    expect(schemaSize({ default: null, enum: [null, 1] })).toEqual({ nodes: 2, problem: undefined })
  })

  it("takes exactly MAX_SCHEMA_DEPTH levels; one more is a problem; a million levels are measured without recursion", () => {
    expect(schemaSize(nested(MAX_SCHEMA_DEPTH))).toEqual({ nodes: MAX_SCHEMA_DEPTH, problem: undefined })
    expect(schemaSize(nested(MAX_SCHEMA_DEPTH + 1)).problem).toBe(`it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`)
    const deep = JSON.parse(`${"{\"a\":".repeat(1_000_000)}1${"}".repeat(1_000_000)}`)
    expect(schemaSize(deep).problem).toBe(`it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`)
  })

  it("a schema too big is refused before ajv compiles it: compileArgumentsValidator throws, makeRawTool names the tool", () => {
    expect(() => compileArgumentsValidator(withNodes(MAX_SCHEMA_NODES + 1))).toThrow(
      `the schema is too big to check arguments with: it holds more than ${MAX_SCHEMA_NODES} objects and arrays`
    )
    expect(compileArgumentsValidator(withNodes(MAX_SCHEMA_NODES)).validate({ p0: 1 })).toBeUndefined()
    const make = () => makeRawTool("deep", { description: "", parameters: nested(100), handler: () => Effect.void })
    expect(make).toThrow(InvalidToolDefinition)
    expect(make).toThrow(`parameters: the schema is too big to check arguments with: it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`)
  })
})

describe("screenListing", () => {
  it("takes the tools in order while their schemas fit the listing's budget; a later one that fits is still taken", () => {
    const big = MAX_SCHEMA_NODES
    const full = Array.from({ length: MAX_LISTING_SCHEMA_NODES / big }, (_, i) => tool(`t${i}`, withNodes(big)))
    const { leftOut, taken } = screenListing([...full, tool("over", withNodes(2)), tool("alone", withNodes(big + 1))])
    expect(taken.map((t) => t.name)).toEqual(full.map((t) => t.name))
    expect(leftOut).toEqual([
      { tool: "over", reason: `the input schemas of the server's tools hold more than ${MAX_LISTING_SCHEMA_NODES} objects and arrays together` },
      { tool: "alone", reason: `the input schemas of the server's tools hold more than ${MAX_LISTING_SCHEMA_NODES} objects and arrays together` }
    ])
    // 18,000 + 1,995 taken: 5 left, too few for 6 objects, enough for 5
    const nine = full.slice(0, 9)
    const room = screenListing([...nine, tool("a", withNodes(1995)), tool("b", withNodes(6)), tool("c", withNodes(5))])
    expect(room.taken.map((t) => t.name)).toEqual([...nine.map((t) => t.name), "a", "c"])
    expect(room.leftOut.map((t) => t.tool)).toEqual(["b"])
  })

  it("a schema too deep is left out for its depth, also when the budget left is exactly its size", () => {
    const full = Array.from({ length: 9 }, (_, i) => tool(`t${i}`, withNodes(MAX_SCHEMA_NODES)))
    const tooDeep = nested(MAX_SCHEMA_DEPTH + 1)
    // 18,000 + 1,935 taken: 65 left, as many as the too-deep schema holds
    const { leftOut } = screenListing([tool("deep", tooDeep), ...full, tool("filler", withNodes(1935)), tool("deep2", tooDeep)])
    const depth = `its input schema is too big: it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`
    expect(leftOut).toEqual([{ tool: "deep", reason: depth }, { tool: "deep2", reason: depth }])
  })

  it("a schema too big on its own is left out with its own reason, and costs the budget nothing", () => {
    const { leftOut, taken } = screenListing([tool("wide", withNodes(MAX_SCHEMA_NODES + 1)), tool("ok", withNodes(3))])
    expect(taken.map((t) => t.name)).toEqual(["ok"])
    expect(leftOut).toEqual([{ tool: "wide", reason: `its input schema is too big: it holds more than ${MAX_SCHEMA_NODES} objects and arrays` }])
    const full = Array.from({ length: MAX_LISTING_SCHEMA_NODES / MAX_SCHEMA_NODES }, (_, i) => tool(`t${i}`, withNodes(MAX_SCHEMA_NODES)))
    const all = screenListing([tool("wide", withNodes(MAX_SCHEMA_NODES + 1)), ...full])
    expect(all.taken).toEqual(full)
    // nothing left of the budget: the smallest schema (one object) is left out
    expect(screenListing([...full, tool("tiny", {})]).leftOut.map((t) => t.tool)).toEqual(["tiny"])
  })
})

describe("a server listing schemas too big to compile", () => {
  it.scopedLive("is up with the tools that fit; each one left out is logged with its reason", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-big-schemas-")
      const logs: Array<string> = []
      const capture = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logs.push(String(message))))
      const { bridge, system } = yield* openBridged(ws, { big: nodeServer("bigSchemas.mjs", [], { requiresConfirmation: false }) }).pipe(Effect.provide(capture))
      // 10 of the 1,900-object schemas fit 20,000 (with the small one's 3 objects)
      expect([...bridge.proxies.keys()].sort()).toEqual([
        "big__fine",
        ...Array.from({ length: 10 }, (_, i) => `big__many${i}`)
      ].sort())
      expect(yield* system.execute("big__fine", { text: "x" })).toMatchObject({ success: true, output: "fine" })
      const skipped = logs.filter((line) => line.includes("skipped"))
      expect(skipped).toEqual([
        `MCP server "big": tool "wide" skipped: its input schema is too big: it holds more than ${MAX_SCHEMA_NODES} objects and arrays`,
        `MCP server "big": tool "deep" skipped: its input schema is too big: it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`,
        `MCP server "big": tool "many10" skipped: the input schemas of the server's tools hold more than ${MAX_LISTING_SCHEMA_NODES} objects and arrays together`,
        `MCP server "big": tool "many11" skipped: the input schemas of the server's tools hold more than ${MAX_LISTING_SCHEMA_NODES} objects and arrays together`
      ])
    }), 30_000)
})
