// @ts-check
/**
 * Mutant counts by status (`{ Killed: 3, Survived: 1, ... }`) and the score they make, as
 * mutation-summary.mjs and mutation-sample.mjs both add them up: detected = Killed + Timeout,
 * undetected = Survived + NoCoverage (CompileError, RuntimeError, Ignored and Equivalent left out).
 */

/** Adds `counts` into `into`, status by status. */
export const addCounts = (/** @type {Record<string, number>} */ into, /** @type {Record<string, number>} */ counts) => {
  for (const [status, n] of Object.entries(counts)) into[status] = (into[status] ?? 0) + n
  return into
}

/** The detected and undetected mutants of `counts`, and the score in percent (NaN with none). */
export const scoreOf = (/** @type {Record<string, number>} */ counts) => {
  const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0)
  const undetected = (counts.Survived ?? 0) + (counts.NoCoverage ?? 0)
  return { detected, undetected, score: detected + undetected === 0 ? NaN : (100 * detected) / (detected + undetected) }
}
