/**
 * A bound on the work of validating one value against a server's schema: a call's arguments,
 * or the structured content of its answer.
 *
 * ajv's validators run to the end in one go, and some schemas make that exponential in the
 * value (a recursive `anyOf` tries every branch at every level: 21 levels, seconds). So
 * every schema given to ajv carries `WORK_KEYWORD` with its own cost (`schemaBudget.ts`), and
 * each time ajv applies a schema to a value, the keyword adds that cost (and the value's keys
 * or characters) to a meter; past `MAX_VALIDATION_WORK`, or `MAX_VALIDATION_MS` after the
 * start, it throws, and the value is refused with a clear issue. Validation is synchronous, so
 * one meter serves every validator.
 *
 * @since 0.1.0
 */
import type { KeywordDefinition } from "ajv"
import * as Data from "effect/Data"

/** The keyword every schema of a copy carries. */
export const WORK_KEYWORD = "x-effect-tool-system-work"

/** A schema's cost, as its work keyword says. */
export interface WorkCost {
  /** Each time the schema is applied. */
  readonly node: number
  /** More for each key of an object it is applied to. */
  readonly perKey: number
}

/** Most work for one value (a few tens of ms on a quiet machine). A value that needs more is refused. */
export const MAX_VALIDATION_WORK = 1_000_000
/**
 * Longest one value's validation may run, whatever the work counted: the backstop for work
 * that costs more per unit than was measured (a busy machine, paths that build many errors),
 * well under the 100 ms an event loop may be held.
 */
export const MAX_VALIDATION_MS = 40
/** How many schema applications pass between two looks at the clock. */
const CLOCK_EVERY = 256

/** Characters of a string that count as one unit of work. */
const CHARS_PER_UNIT = 256

/** The meter went past one of its bounds. */
export class ValidationWorkExceeded extends Data.TaggedError("ValidationWorkExceeded")<{
  /** The bound, in words: `"1000000 steps"`, `"40 ms"`. */
  readonly bound: string
}> {}

const meter = { left: 0, applied: 0, deadline: 0 }

const isWorkCost = (u: unknown): u is WorkCost =>
  typeof u === "object" && u !== null && typeof Reflect.get(u, "node") === "number" &&
  typeof Reflect.get(u, "perKey") === "number"

/** The work keyword, for `ajv.addKeyword`. */
export const workKeyword: KeywordDefinition = {
  keyword: WORK_KEYWORD,
  schemaType: "object",
  errors: false,
  validate: (cost: unknown, data: unknown) => {
    // the copy sets every cost; a server cannot lower it (no schema of a copy is its own)
    const node = isWorkCost(cost) ? Math.max(1, cost.node) : 1
    const perKey = isWorkCost(cost) ? Math.max(1, cost.perKey) : 1
    let work = node
    // (an array's items are counted as the items' schema is applied to each)
    if (typeof data === "string") work += Math.floor(data.length / CHARS_PER_UNIT)
    else if (typeof data === "object" && data !== null && !Array.isArray(data)) {
      // counted without listing the keys: a listing would be work of its own
      let keys = 0
      for (const key in data) if (Object.hasOwn(data, key)) keys += 1
      work += keys * perKey
    }
    meter.left -= work
    if (meter.left < 0) throw new ValidationWorkExceeded({ bound: `${MAX_VALIDATION_WORK} steps` })
    if (++meter.applied % CLOCK_EVERY === 0 && performance.now() > meter.deadline) {
      throw new ValidationWorkExceeded({ bound: `${MAX_VALIDATION_MS} ms` })
    }
    return true
  }
}

/** Runs `validate` with a full meter; it throws `ValidationWorkExceeded` when it runs out. */
export const metered = <A>(validate: () => A): A => {
  meter.left = MAX_VALIDATION_WORK
  meter.applied = 0
  meter.deadline = performance.now() + MAX_VALIDATION_MS
  try {
    return validate()
  } finally {
    meter.left = 0
  }
}
