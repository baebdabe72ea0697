// @ts-check
/**
 * Checks the entries of mutation-ledger.json against the mutants Stryker's own instrumenter makes of
 * today's sources, without running a test: `node scripts/mutation-marks.mjs`.
 *
 * - "not found" / "found twice": an entry whose `code` (and `previous`) no longer finds exactly one line
 *   of its file (the ledger's test fails on these too);
 * - "matches nothing": a mutator of an entry that makes no mutant on its line (a mutator named wrongly,
 *   or code changed under the entry); for an `all` entry, a statement of which nothing is ignored;
 * - "both sides": an entry that counts two or more mutants of one comparison or condition as equivalent
 *   (`<=` and `>=`, `true` and `false`). Usually only one of them is; apply the other by hand, and where
 *   a test kills it, the entry hides a killed mutant and becomes `unmarked`. An entry whose reason says
 *   "both sides" (each side was applied by hand and is equivalent) is left out.
 *
 * It also lists the `// Stryker disable` marks still in src/ (files being rewritten, their marks to move
 * to the ledger), which Stryker still applies as before.
 */
import { Instrumenter } from "@stryker-mutator/instrumenter"
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { strykerPlugins } from "./mutation-ignorer.mjs"
import { locate, readLedger, root } from "./mutation-ledger.mjs"

const quiet = () => {}
const logger = {
  debug: quiet, info: quiet, warn: quiet, trace: quiet, fatal: quiet,
  error: (/** @type {unknown[]} */ ...args) => console.error(...args),
  isDebugEnabled: () => false, isTraceEnabled: () => false, isInfoEnabled: () => false,
  isWarnEnabled: () => false, isErrorEnabled: () => true, isFatalEnabled: () => true
}
const ignorers = strykerPlugins.map((plugin) => plugin.value)

/**
 * @typedef {{ location: { start: { line: number, column: number } }, mutatorName: string, replacement: string, status?: string, statusReason?: string }} Mutant
 *   the instrumenter's mutant (0-based lines and columns)
 */

const ledger = readLedger()
let found = 0
/** @param {string} text */
const report = (text) => {
  found++
  console.log(text)
}
for (const file of [...new Set(ledger.map((e) => e.file))].sort()) {
  const content = readFileSync(join(root, file), "utf8")
  const lines = content.split("\n")
  // @ts-expect-error: the instrumenter's logger and options types are internal to Stryker
  const { mutants } = await new Instrumenter(logger).instrument([{ name: file, mutate: true, content }], {
    plugins: null, excludedMutations: [], ignorers, parser: undefined
  })
  for (const entry of ledger.filter((e) => e.file === file)) {
    const at = locate(entry, lines)
    const line = at[0]
    if (at.length !== 1 || line === undefined) {
      report(`${file} ${at.length === 0 ? "not found" : "found twice"}: ${entry.code}`)
      continue
    }
    const where = `${file}:${line + 1}`
    if (entry.mutators.includes("all")) {
      if (!mutants.some((/** @type {Mutant} */ m) => m.status === "Ignored" && m.statusReason === entry.reason)) {
        report(`${where} ignores nothing: ${entry.code}`)
      }
      continue
    }
    /** @type {Array<Mutant>} */
    const own = mutants.filter((/** @type {Mutant} */ m) => m.location.start.line === line && entry.mutators.includes(m.mutatorName))
    for (const mutator of entry.mutators) {
      if (!own.some((m) => m.mutatorName === mutator)) report(`${where} ${mutator} matches nothing: ${entry.code}`)
    }
    if (entry.unmarked === true || /both sides|not reached/.test(entry.reason)) continue
    /** @type {Map<string, Array<string>>} */
    const sides = new Map()
    for (const m of own) {
      if (m.mutatorName !== "EqualityOperator" && m.mutatorName !== "ConditionalExpression") continue
      const key = `${where}:${m.location.start.column + 1} ${m.mutatorName}`
      sides.set(key, [...(sides.get(key) ?? []), m.replacement.replace(/\s+/g, " ").slice(0, 40)])
    }
    for (const [key, replacements] of sides) if (replacements.length >= 2) report(`${key} both sides: ${replacements.join(" / ")}`)
  }
}
// grep exits 1 when it finds none
const inline = spawnSync("grep", ["-rln", "--include=*.ts", "Stryker disable", "src"], { cwd: root, encoding: "utf8" }).stdout.trim()
console.log(`${found} ledger entr${found === 1 ? "y" : "ies"} to look at`)
if (inline !== "") console.log(`inline marks still in (to move to mutation-ledger.json):\n  ${inline.split("\n").join("\n  ")}`)
