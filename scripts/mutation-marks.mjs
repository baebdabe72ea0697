// @ts-check
/**
 * Checks the Stryker marks of `src/` (`// Stryker disable ...`) with Stryker's own instrumenter,
 * without running a test: `node scripts/mutation-marks.mjs`.
 *
 * - "ignores nothing": a `disable next-line` mark that makes no mutant ignored, e.g. one inside
 *   an expression, or after a block's last statement (a trailing comment applies to nothing);
 * - "both sides": a mark that makes Stryker ignore two or more mutants of one comparison or
 *   condition (`<=` and `>=`, `true` and `false`). Usually only one of them is equivalent; apply
 *   the other by hand, and where a test kills it, the mark hides a killed mutant and goes. A mark
 *   whose reason says "both sides" (each side was applied by hand and is equivalent) is left out.
 *
 * A range (`disable all` ... `restore all`) is left out of the second list when its reason says
 * "not reached" (code other systems run) or "both sides" (race-only checks). Stryker reports
 * an ignored mutant with its mark's reason, not the mark itself, so the reason is what is read.
 */
import { Instrumenter } from "@stryker-mutator/instrumenter"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"

const files = execFileSync("grep", ["-rl", "--include=*.ts", "Stryker disable", "src"]).toString().trim().split("\n")
const quiet = () => {}
const logger = {
  debug: quiet, info: quiet, warn: quiet, trace: quiet, fatal: quiet,
  error: (/** @type {unknown[]} */ ...args) => console.error(...args),
  isDebugEnabled: () => false, isTraceEnabled: () => false, isInfoEnabled: () => false,
  isWarnEnabled: () => false, isErrorEnabled: () => true, isFatalEnabled: () => true
}
let found = 0
for (const file of files) {
  const content = readFileSync(file, "utf8")
  // @ts-expect-error: the instrumenter's logger and options types are internal to Stryker
  const { mutants } = await new Instrumenter(logger).instrument([{ name: file, mutate: true, content }], {
    plugins: null, excludedMutations: [], ignorers: [], parser: undefined
  })
  const all = mutants.map((
    /** @type {{ location: { start: { line: number, column: number } }, mutatorName: string, replacement: string, status?: string, statusReason?: string }} */ m
  ) => ({
    line: m.location.start.line + 1, column: m.location.start.column + 1, mutatorName: m.mutatorName,
    replacement: m.replacement, status: m.status, statusReason: m.statusReason
  }))
  content.split("\n").forEach((text, i) => {
    const mark = /Stryker disable next-line [\w,]+: (.*)/.exec(text)
    if (mark === null) return
    // a mark counts when some later mutant is ignored with its reason (a heuristic: reasons such as
    // "as above" repeat, so a dead mark that shares one with a live mark is not found)
    const reason = (mark[1] ?? "").replace(/\s*\*\/.*$/, "").slice(0, 30)
    if (!all.some((m) => m.status === "Ignored" && m.line >= i + 1 && (m.statusReason ?? "").includes(reason))) {
      found++
      console.log(`${file}:${i + 1} ignores nothing: ${text.trim().slice(0, 100)}`)
    }
  })
  /** @type {Map<string, Array<string>>} */
  const sides = new Map()
  for (const m of all) {
    if (m.status !== "Ignored" || /static|not reached|both sides/.test(m.statusReason ?? "")) continue
    if (m.mutatorName !== "EqualityOperator" && m.mutatorName !== "ConditionalExpression") continue
    const key = `${file}:${m.line}:${m.column} ${m.mutatorName}`
    sides.set(key, [...(sides.get(key) ?? []), m.replacement.replace(/\s+/g, " ").slice(0, 40)])
  }
  for (const [key, replacements] of sides) {
    if (replacements.length < 2) continue
    found++
    console.log(`${key} both sides: ${replacements.join(" / ")}`)
  }
}
console.log(`${found} mark(s) to look at`)
