// @ts-check
/**
 * An estimate of the mutation score of the files no run has measured yet, from a random sample
 * of their lines: all of them at once would take many hours of Stryker here (about 1 mutant a
 * second on two shared cores), a sample of one line in twenty about an hour.
 *
 *   node scripts/mutation-sample.mjs lines [--rate 0.05] [--seed 48] [--skip 'glob,...']
 *     prints the `--mutate` list (comma-separated `file:L-L` ranges) of the sample: each code
 *     line (not blank, not a comment, not an import) of each file mutation-summary.mjs lists as
 *     not measured is drawn with probability `rate`, from a seeded generator (the same sample
 *     every time for the same files and seed). `--skip` leaves files out (a folder being
 *     measured whole by another run).
 *   node scripts/mutation-sample.mjs estimate reports/sample-<name>/mutation.json
 *     the sample's score with a 95% (Wilson) interval, overall and per folder, with the
 *     ledger's equivalent mutants left out as mutation-summary.mjs leaves them out.
 *
 * A range holds the mutants whose code lies within it, so the sample is of the mutants that fit
 * on one line (operators, conditions, literals, calls): a statement or block spanning several
 * lines (a removed function body) is never drawn. Run the sample as `MUTATE_RUN=sample-<name>`:
 * mutation-summary.mjs skips reports whose run starts with `sample`, as theirs are not whole files.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import picomatch from "picomatch"
import { excluded, hasCode, included, sourceFiles } from "./mutation-files.mjs"
import { countMutants, readLedger, repoPath, root } from "./mutation-ledger.mjs"

const [mode, ...rest] = process.argv.slice(2)
/** @param {string} name @param {string} fallback */
const option = (name, fallback) => {
  const at = rest.indexOf(`--${name}`)
  return at === -1 ? fallback : rest[at + 1] ?? fallback
}

/** mulberry32: a small seeded generator, so a sample can be drawn again */
const generator = (/** @type {number} */ seed) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const codeLine = (/** @type {string} */ line) => {
  const text = line.trim()
  return text !== "" && !/^(?:\/\/|\/\*|\*|import\b|export\s+(?:type\s+)?\{.*\}\s+from\b)/.test(text)
}

const lines = () => {
  const rate = Number(option("rate", "0.05"))
  const random = generator(Number(option("seed", "48")))
  const skipped = picomatch(option("skip", "").split(",").filter((glob) => glob !== ""))
  const record = JSON.parse(readFileSync(join(root, "mutation-scores.json"), "utf8"))
  const measured = new Set(Object.keys(record.files ?? {}))
  const files = sourceFiles().filter((path) =>
    included(path) && !excluded(path) && !measured.has(path) && !skipped(path) && hasCode(path)
  )
  const ranges = files.flatMap((path) =>
    readFileSync(join(root, path), "utf8").split("\n").flatMap((line, index) =>
      // drawn for every line, code or not, so one file's edit leaves the others' sample as it was
      random() < rate && codeLine(line) ? [`${path}:${index + 1}-${index + 1}`] : []
    )
  )
  process.stderr.write(`${ranges.length} lines of ${files.length} files\n`)
  process.stdout.write(ranges.join(","))
}

/** Wilson's 95% interval of `detected` of `n`, in percent. */
const wilson = (/** @type {number} */ detected, /** @type {number} */ n) => {
  const z = 1.96
  const p = detected / n
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n)
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))
  return [100 * (centre - half), 100 * (centre + half)]
}

const estimate = () => {
  const report = JSON.parse(readFileSync(rest[0] ?? "", "utf8"))
  const ledger = readLedger()
  /** @type {Map<string, Record<string, number>>} */
  const folders = new Map()
  /** @type {Record<string, number>} */
  const total = {}
  const add = (/** @type {Record<string, number>} */ into, /** @type {Record<string, number>} */ counts) => {
    for (const [key, value] of Object.entries(counts)) into[key] = (into[key] ?? 0) + value
  }
  for (const [path, file] of Object.entries(report.files)) {
    const key = repoPath(path)
    const { counts } = countMutants(key, file.source, file.mutants, ledger)
    const folder = key.split("/").slice(0, key.startsWith("src/tools/") ? 3 : 2).join("/")
    if (!folders.has(folder)) folders.set(folder, {})
    add(folders.get(folder) ?? {}, counts)
    add(total, counts)
  }
  const row = (/** @type {string} */ name, /** @type {Record<string, number>} */ c) => {
    const detected = (c.Killed ?? 0) + (c.Timeout ?? 0)
    const n = detected + (c.Survived ?? 0) + (c.NoCoverage ?? 0)
    const [low, high] = n === 0 ? [NaN, NaN] : wilson(detected, n)
    return `${name.padEnd(24)} ${(n === 0 ? NaN : (100 * detected) / n).toFixed(1).padStart(6)}%  ` +
      `[${low.toFixed(1)}, ${high.toFixed(1)}]  ${String(detected).padStart(4)} detected of ${String(n).padStart(4)}  ` +
      `${c.Survived ?? 0} survived, ${c.NoCoverage ?? 0} no coverage, ${c.Equivalent ?? 0} equivalent`
  }
  for (const folder of [...folders.keys()].sort()) console.log(row(folder, folders.get(folder) ?? {}))
  console.log(row("sample", total))
}

if (mode === "lines") lines()
else if (mode === "estimate") estimate()
else {
  process.stderr.write("usage: mutation-sample.mjs lines [--rate r] [--seed n] [--skip globs] | estimate report.json\n")
  process.exitCode = 2
}
