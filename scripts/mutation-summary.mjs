// @ts-check
/**
 * The mutation score per folder of `src/`, from StrykerJS's JSON reports (`npm run mutate`
 * writes reports/mutation/mutation.json; a run over one folder may write its own). Several
 * reports may be given: each file's mutants are taken from the newest report that has it,
 * so the runs of several folders add up to one table.
 *
 *   node scripts/mutation-summary.mjs [report.json ...]   (default: every reports/*\/mutation.json)
 *
 * Score = detected / (detected + undetected): detected = Killed + Timeout, undetected =
 * Survived + NoCoverage (as Stryker counts it; CompileError, RuntimeError and Ignored left out).
 */
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs"
import { join, relative, resolve, dirname } from "node:path"
import picomatch from "picomatch"
import config from "../stryker.config.mjs"

const root = resolve(dirname(new URL(import.meta.url).pathname), "..")
const given = process.argv.slice(2)
const reports = given.length > 0
  ? given
  : readdirSync(join(root, "reports"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, "reports", entry.name, "mutation.json")))
    .map((entry) => join(root, "reports", entry.name, "mutation.json"))

// what `npm run mutate` mutates: the config's patterns, `!` ones excluded
const patterns = config.mutate ?? []
const included = picomatch(patterns.filter((p) => !p.startsWith("!")))
const excluded = picomatch(patterns.filter((p) => p.startsWith("!")).map((p) => p.slice(1)))
/** @type {Map<string, { mtime: number, report: string, counts: Record<string, number> }>} */
const files = new Map()
for (const report of reports) {
  const mtime = statSync(report).mtimeMs
  const json = JSON.parse(readFileSync(report, "utf8"))
  for (const [path, file] of Object.entries(json.files)) {
    const key = relative(root, resolve(root, path))
    // a report made before the config left a file out still holds it
    if (excluded(key)) continue
    const seen = files.get(key)
    if (seen !== undefined && seen.mtime >= mtime) continue
    /** @type {Record<string, number>} */
    const counts = {}
    for (const mutant of file.mutants) counts[mutant.status] = (counts[mutant.status] ?? 0) + 1
    files.set(key, { mtime, report: relative(root, report), counts })
  }
}

const folderOf = (path) => {
  const parts = path.split("/")
  if (parts[1] === "tools" && parts.length > 3) return parts.slice(0, parts[2] === "ported" && parts.length > 4 ? 4 : 3).join("/")
  return parts.slice(0, Math.min(parts.length - 1, 2)).join("/")
}
/** @type {Map<string, Record<string, number>>} */
const folders = new Map()
const add = (into, counts) => { for (const [k, v] of Object.entries(counts)) into[k] = (into[k] ?? 0) + v }
const total = {}
for (const [path, { counts }] of files) {
  const folder = folderOf(path)
  if (!folders.has(folder)) folders.set(folder, {})
  add(folders.get(folder), counts)
  add(total, counts)
}
const score = (c) => {
  const detected = (c.Killed ?? 0) + (c.Timeout ?? 0)
  const undetected = (c.Survived ?? 0) + (c.NoCoverage ?? 0)
  return { detected, undetected, score: detected + undetected === 0 ? NaN : (100 * detected) / (detected + undetected) }
}
const row = (name, c) => {
  const s = score(c)
  return `${name.padEnd(34)} ${s.score.toFixed(2).padStart(7)}%  ${String(s.detected).padStart(6)} detected  ${String(c.Survived ?? 0).padStart(5)} survived  ${String(c.NoCoverage ?? 0).padStart(5)} no coverage`
}
for (const folder of [...folders.keys()].sort()) console.log(row(folder, folders.get(folder)))
console.log(row("all measured files", total))
const measured = new Set(files.keys())
const unmeasured = []
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) walk(path)
    else if (path.endsWith(".ts") && !measured.has(relative(root, path))) unmeasured.push(relative(root, path))
  }
}
walk(join(root, "src"))
const toMeasure = unmeasured.filter((path) => included(path) && !excluded(path))
// a file of types and re-exports only has no mutant, so no run reports it
const hasCode = (path) =>
  /^\s*(?:export\s+)?(?:const|let|function|class|async)\b|^\s*export\s+default\b/m.test(readFileSync(join(root, path), "utf8"))
const withCode = toMeasure.filter(hasCode)
console.log(
  `\n${measured.size} files measured; ${unmeasured.length - toMeasure.length} excluded by stryker.config.mjs; ` +
    `${toMeasure.length - withCode.length} with no code to mutate (types, re-exports); ${withCode.length} not in any report:`
)
for (const path of withCode) console.log(`  ${path}`)
