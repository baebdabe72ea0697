/**
 * What `listingLimits.test.ts` and `listingLimits.slow.test.ts` share: the reason a schema too
 * costly to compile is refused with.
 */

/** The problem `budgetSchema` names for a schema costing more than `max`. */
export const tooCostly = (max: number) => `it costs more than ${max} to compile (each keyword and enum or required member counts)`
