/**
 * A real server (`servers/bigSchemas.mjs`) listing schemas too big to compile: the bridge is up
 * with the tools that fit (one schema too costly and one too deep left out on their own, the
 * rest up to the listing's budget of 10,000 together), and each one left out is logged with its
 * reason. In the slow lane: ajv compiles twenty schemas of cost 480 (the budget is the point),
 * about 1.5-2 s of CPU. The screening itself is tested in `listingLimits.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { MAX_SCHEMA_COST } from "../../../src/tools/mcp/jsonSchema.js"
import { MAX_LISTING_SCHEMA_COST } from "../../../src/tools/mcp/listingLimits.js"
import { MAX_SCHEMA_DEPTH } from "../../../src/tools/mcp/schemaBudget.js"
import { tempDir } from "../../helpers/tempDir.js"
import { nodeServer, openBridged } from "./helpers.js"
import { tooCostly } from "./listingLimitsHarness.js"

describe("a server listing schemas too big to compile", () => {
  it.live("is up with the tools that fit; each one left out is logged with its reason", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-big-schemas-")
      const logs: Array<string> = []
      const capture = Logger.layer([Logger.make(({ message }) => logs.push(String(message)))])
      const { bridge, system } = yield* openBridged(ws, { big: nodeServer("bigSchemas.mjs", [], { requiresConfirmation: false }) }).pipe(Effect.provide(capture))
      // 20 of the 480-cost schemas (481 with additionalProperties) fit 10,000, and the small one
      expect([...bridge.proxies.keys()].sort()).toEqual([
        "big__fine",
        ...Array.from({ length: 20 }, (_, i) => `big__many${i}`)
      ].sort())
      expect(yield* system.execute("big__fine", { text: "x" })).toMatchObject({ success: true, output: "fine" })
      const skipped = logs.filter((line) => line.includes("skipped"))
      const together = `the input and output schemas of the server's tools cost more than ${MAX_LISTING_SCHEMA_COST} to compile together`
      expect(skipped).toEqual([
        `MCP server "big": tool "wide" skipped: its input schema cannot be checked here: ${tooCostly(MAX_SCHEMA_COST)}`,
        `MCP server "big": tool "deep" skipped: its input schema cannot be checked here: it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`,
        `MCP server "big": tool "many20" skipped: ${together}`,
        `MCP server "big": tool "many21" skipped: ${together}`
      ])
    }), 30_000)
})
