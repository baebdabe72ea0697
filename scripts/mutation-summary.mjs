// @ts-check
/**
 * The mutation score per folder of `src/`, from StrykerJS's JSON reports and the committed record
 * of earlier runs (`mutation-scores.json`).
 *
 * A run over all of `src/` takes many hours here (about 16,600 mutants), so the score is made of
 * runs over one folder at a time (see stryker.config.mjs's `MUTATE_RUN`), on several days and
 * machines. Each file's counts are taken from the newest source that has them: a report in
 * reports/<run>/mutation.json, or the record. `--save` writes the result back into the record
 * (commit it), so the runs add up across clones. Each file's entry keeps the SHA-256 of the
 * source that was mutated; a file changed since is listed as such (its counts still count,
 * until a run measures it again). Each run is recorded with its test files: a score is that of
 * those tests.
 *
 *   node scripts/mutation-summary.mjs [--save] [report.json ...]
 *     (default reports: every reports/*\/mutation.json)
 *
 * Score = detected / (detected + undetected): detected = Killed + Timeout, undetected =
 * Survived + NoCoverage (as Stryker counts it; CompileError, RuntimeError and Ignored left out).
 *
 * Equivalent mutants (no test could ever kill them) are listed in mutation-ledger.json, not marked in
 * the source: a report's Survived or NoCoverage mutant that a ledger entry covers (its file, mutator
 * and line: scripts/mutation-ledger.mjs) is counted `Equivalent`, left out of the score as Ignored is,
 * and shown in a column of its own. A Killed one that an entry covers is listed: the entry is wrong or
 * too wide. The ledger is applied as a report is read, so `--save` records a file's counts with it;
 * counts from before the ledger have those mutants as Ignored (inline marks then), the same score.
 */
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { addCounts, scoreOf } from "./mutation-counts.mjs"
import { excluded, hasCode, included, sourceFiles } from "./mutation-files.mjs"
import { countMutants, readLedger } from "./mutation-ledger.mjs"

const root = resolve(dirname(new URL(import.meta.url).pathname), "..")
const recordPath = join(root, "mutation-scores.json")
const args = process.argv.slice(2)
const save = args.includes("--save")
const given = args.filter((arg) => arg !== "--save")
const reportsDir = join(root, "reports")
const reports = given.length > 0
  ? given
  : existsSync(reportsDir)
  ? readdirSync(reportsDir, { withFileTypes: true })
    // a sample's report (mutation-sample.mjs) measures some lines of its files, not the files
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("sample") && existsSync(join(reportsDir, entry.name, "mutation.json")))
    .map((entry) => join(reportsDir, entry.name, "mutation.json"))
  : []

const sha256 = (text) => createHash("sha256").update(text).digest("hex")

/**
 * @typedef {{ measuredAt: string, run: string, sha256: string, counts: Record<string, number> }} Entry
 * @type {Map<string, Entry>}
 */
const files = new Map()
/** @param {string} key @param {Entry} entry */
const offer = (key, entry) => {
  // a report made before the config left a file out still holds it
  if (excluded(key)) return
  const seen = files.get(key)
  // the same run offered again (its report after mutation-scores.json's copy): the report's counts
  // win, as they are counted with today's ledger
  if (seen === undefined || Date.parse(seen.measuredAt) <= Date.parse(entry.measuredAt)) files.set(key, entry)
}

const ledger = readLedger()
/** @type {Array<string>} */
const contradicted = []

/** @type {Record<string, { measuredAt: string, testFiles: Array<string> }>} */
const runs = {}
if (existsSync(recordPath)) {
  const record = JSON.parse(readFileSync(recordPath, "utf8"))
  Object.assign(runs, record.runs ?? {})
  for (const [key, entry] of Object.entries(record.files ?? {})) offer(key, entry)
}
for (const report of reports) {
  const measuredAt = statSync(report).mtime.toISOString()
  const json = JSON.parse(readFileSync(report, "utf8"))
  const run = relative(root, dirname(report))
  runs[run] = { measuredAt, testFiles: Object.keys(json.testFiles ?? {}).map((path) => relative(root, resolve(root, path))).sort() }
  for (const [path, file] of Object.entries(json.files)) {
    const key = relative(root, resolve(root, path))
    const { counts, contradicted: killed } = countMutants(key, file.source, file.mutants, ledger)
    for (const { mutant, entry } of killed) {
      contradicted.push(`${key}:${mutant.location.start.line} ${mutant.mutatorName} ${mutant.status} (${run}): ${entry.code}`)
    }
    offer(key, { measuredAt, run, sha256: sha256(file.source), counts })
  }
}

const folderOf = (path) => {
  const parts = path.split("/")
  if (parts[1] === "tools" && parts.length > 3) return parts.slice(0, parts[2] === "ported" && parts.length > 4 ? 4 : 3).join("/")
  return parts.slice(0, Math.min(parts.length - 1, 2)).join("/")
}
/** @type {Map<string, Record<string, number>>} */
const folders = new Map()
const total = {}
const sorted = [...files].sort(([a], [b]) => a.localeCompare(b))
/** @type {Array<string>} */
const changed = []
for (const [path, { counts, sha256: measured }] of sorted) {
  const folder = folderOf(path)
  if (!folders.has(folder)) folders.set(folder, {})
  addCounts(folders.get(folder), counts)
  addCounts(total, counts)
  const now = join(root, path)
  if (!existsSync(now) || sha256(readFileSync(now, "utf8")) !== measured) changed.push(path)
}
const row = (name, c) => {
  const s = scoreOf(c)
  return `${name.padEnd(34)} ${s.score.toFixed(2).padStart(7)}%  ${String(s.detected).padStart(6)} detected  ${String(c.Survived ?? 0).padStart(5)} survived  ${String(c.NoCoverage ?? 0).padStart(5)} no coverage  ${String(c.Equivalent ?? 0).padStart(4)} equivalent`
}
for (const folder of [...folders.keys()].sort()) console.log(row(folder, folders.get(folder)))
console.log(row("all measured files", total))
const measured = new Set(files.keys())
const unmeasured = sourceFiles().filter((path) => !measured.has(path))
const toMeasure = unmeasured.filter((path) => included(path) && !excluded(path))
const withCode = toMeasure.filter(hasCode)
console.log(
  `\n${measured.size} files measured (${reports.length} report(s)${existsSync(recordPath) ? " and mutation-scores.json" : ""}); ` +
    `${unmeasured.length - toMeasure.length} excluded by stryker.config.mjs; ` +
    `${toMeasure.length - withCode.length} with no code to mutate (types, re-exports); ${withCode.length} not measured yet:`
)
for (const path of withCode) console.log(`  ${path}`)
if (changed.length > 0) {
  console.log(`\n${changed.length} measured file(s) changed since (their counts are of the source that was mutated):`)
  for (const path of changed) console.log(`  ${path} (${files.get(path)?.run}, ${files.get(path)?.measuredAt.slice(0, 10)})`)
}
if (contradicted.length > 0) {
  console.log(`\n${contradicted.length} killed mutant(s) on a mutation-ledger.json entry (the entry is wrong or covers more than its equivalent mutant):`)
  for (const line of contradicted) console.log(`  ${line}`)
}
if (save) {
  // only the runs some file's counts still come from
  const fromRuns = new Set([...files.values()].map((entry) => entry.run))
  const used = Object.fromEntries(Object.entries(runs).filter(([run]) => fromRuns.has(run)))
  const about = "written by scripts/mutation-summary.mjs --save: each file's mutant counts from its newest run, the SHA-256 of " +
    "the source that run mutated, and each run's test files"
  writeFileSync(recordPath, `${JSON.stringify({ about, runs: used, files: Object.fromEntries(sorted) }, null, 1)}\n`)
  console.log(`\nsaved ${files.size} files' counts to ${relative(root, recordPath)}`)
}
