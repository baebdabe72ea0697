/**
 * The tests of `listingLimits.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * How much of a server's listing is taken: each input schema cheap enough to compile (a cost
 * of 500: each schema, keyword value and enum or required member counts; 64 levels), all of a
 * listing's schemas within 10,000 together. ajv turns each schema taken into code at once, so
 * this bounds the blocking work a server can cause by what it lists. Measuring a schema is
 * bounded too: no recursion, and it stops at the limit. A real server listing schemas too big
 * is in `listingLimits.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { MAX_SCHEMA_DEPTH } from "../../../src/tools/mcp/schemaBudget.js"
import { costOf, nested } from "./listingLimitsHarness.js"

describe("budgetSchema", () => {

  it("takes exactly MAX_SCHEMA_DEPTH levels, in any keyword; one more is a problem; a million levels are measured without recursion", () => {
    expect(costOf(nested(MAX_SCHEMA_DEPTH)).problem).toBeUndefined()
    expect(costOf(nested(MAX_SCHEMA_DEPTH + 1)).problem).toBe(`it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`)
    // also inside a keyword ajv ignores: the schema is still shown to models and compared
    expect(costOf(nested(MAX_SCHEMA_DEPTH + 1, "x-vendor")).problem).toBe(`it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`)
    const deep = JSON.parse(`${"{\"a\":".repeat(1_000_000)}1${"}".repeat(1_000_000)}`)
    expect(costOf(deep).problem).toBe(`it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`)
  })
})
