/**
 * What `listingLimits.test.ts` and `listingLimits.slow.test.ts` share: the reason a schema too
 * costly to compile is refused with; with `listingLimits.depth.slow.test.ts`, nested schemas and
 * what `budgetSchema` says of them.
 */
import { MAX_SCHEMA_COST } from "../../../src/tools/mcp/jsonSchema.js"
import { budgetSchema } from "../../../src/tools/mcp/schemaBudget.js"

/** The problem `budgetSchema` names for a schema costing more than `max`. */
export const tooCostly = (max: number) => `it costs more than ${max} to compile (each keyword and enum or required member counts)`

/** `levels` nested objects, each the only value of the one before. */
export const nested = (levels: number, key = "not"): Record<string, unknown> => {
  let schema: Record<string, unknown> = { type: "string" }
  for (let i = 1; i < levels; i++) schema = { [key]: schema }
  return schema
}

/** `budgetSchema`'s cost and problem for `schema`, within `max`. */
export const costOf = (schema: unknown, max = MAX_SCHEMA_COST) => {
  const { cost, problem } = budgetSchema(schema, max)
  return { cost, problem }
}
