/**
 * YAML parsed and written by the `yaml` package in a worker thread with a deadline
 * (`shared/scriptWorker.ts`). On the main thread it would be a hazard: the parser costs about
 * 2 µs per character, and some inputs are quadratic. Measured here: 40,000 keys (540 KB) took
 * 25 s with duplicate-key checks on (each key is compared with all before it), and 900 KB of
 * anchors and aliases 106 s. A deadline bounds all of them; the caller also refuses deep
 * nesting before the parser sees it (`yamlNestingProblem`).
 *
 * Duplicate keys are not checked (that check is the quadratic one): the last value wins, as
 * with `JSON.parse`. Aliases are expanded at most `maxAliasCount` times (the "billion laughs").
 * Values cross the thread boundary by structured clone, which keeps an own `__proto__` key as
 * data and an alias that refers to its own anchor as a cycle (caught by the caller's tree check).
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { headOf } from "../../shared/outputCap.js"
import { modulePath, runScriptWorker } from "../../shared/scriptWorker.js"

/** How long parsing or writing one document may take. */
export const YAML_DEADLINE: Duration.DurationInput = "10 seconds"

/** The worker's heap cap. */
export const YAML_HEAP_MB = 256

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads")
const YAML = require(workerData.module)
const { job } = workerData
const answer = (() => {
  try {
    if (job.op === "stringify") {
      return { ok: true, value: YAML.stringify(job.value, { aliasDuplicateObjects: false }) }
    }
    const docs = YAML.parseAllDocuments(job.text, { prettyErrors: true, uniqueKeys: false, logLevel: "error" })
    const all = Array.isArray(docs) ? docs : [docs]
    for (const doc of all) {
      if (doc.errors.length > 0) return { ok: false, error: doc.errors[0].message }
    }
    const values = all.map((doc) => doc.toJS({ maxAliasCount: 100 }))
    return { ok: true, value: values.length === 1 ? values[0] : values }
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) }
  }
})()
parentPort.postMessage(answer)
`

type Answer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string }

const isAnswer = (u: unknown): u is Answer =>
  // (its `true` mutants are equivalent, the worker is WORKER_SOURCE above, which posts an Answer; left
  // unmarked, as a mark would also hide `false`, which convert_format's tests kill)
  typeof u === "object" && u !== null && "ok" in u && (u.ok === true ? "value" in u : "error" in u && typeof u.error === "string")

type Job = { readonly op: "parse"; readonly text: string } | { readonly op: "stringify"; readonly value: unknown }

const run = (job: Job, what: string, deadline: Duration.DurationInput) =>
  runScriptWorker(WORKER_SOURCE, { module: modulePath("yaml"), job }, { deadline, heapMb: YAML_HEAP_MB, what }).pipe(
    Effect.mapError((failure) => failure.message),
    Effect.flatMap((answer) =>
      // Stryker disable next-line StringLiteral: equivalent, not reached (see isAnswer)
      isAnswer(answer) ? Effect.succeed(answer) : Effect.dieMessage("the YAML worker answered an unknown shape")
    )
  )

/**
 * The value of a YAML text (a list of values when it holds several documents); fails with
 * "not valid YAML: ..." or why the parser did not finish.
 */
export const parseYamlInWorker = (
  text: string,
  deadline: Duration.DurationInput = YAML_DEADLINE
): Effect.Effect<unknown, string> =>
  Effect.flatMap(run({ op: "parse", text }, "the YAML parser", deadline), (a) =>
    a.ok ? Effect.succeed(a.value) : Effect.fail(`not valid YAML: ${headOf(a.error, 600).trimEnd()}`))

/** `value` as YAML text. */
export const stringifyYamlInWorker = (
  value: unknown,
  deadline: Duration.DurationInput = YAML_DEADLINE
): Effect.Effect<string, string> =>
  Effect.flatMap(run({ op: "stringify", value }, "writing YAML", deadline), (a) =>
    a.ok && typeof a.value === "string"
      ? Effect.succeed(a.value)
      : Effect.fail(a.ok ? "writing YAML gave no text" : `cannot write YAML: ${headOf(a.error, 600)}`))
