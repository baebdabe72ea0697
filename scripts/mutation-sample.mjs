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
 *   node scripts/mutation-sample.mjs estimate reports/sample-<name>/events
 *     the sample's score with a 95% (Wilson) interval, overall and per folder, with the
 *     ledger's equivalent mutants left out as mutation-summary.mjs leaves them out.
 *   node scripts/mutation-sample.mjs estimate <report or events> --unmeasured [--rate 0.05]
 *     the same over the sampled files still not measured whole (mutation-scores.json), and the
 *     score of all of src: those files' scored mutants taken as the sample's over the rate.
 *
 * A range holds the mutants whose code lies within it, so the sample is of the mutants that fit
 * on one line (operators, conditions, literals, calls): a statement or block spanning several
 * lines (a removed function body) is never drawn. Run the sample as `MUTATE_RUN=sample-<name>`:
 * mutation-summary.mjs skips reports whose run starts with `sample`, as theirs are not whole files.
 *
 * A mutant in module-level code (outside every function: a tool's description, a constant) runs
 * once, as its module loads. stryker.config.mjs's `ignoreStatic` leaves such mutants out, but
 * Stryker sees them as static only when the module was loaded before the tests; a module a test
 * loads (the catalog, imported on first use) has them covered by that test, where they can never
 * be switched on (the module stays loaded), so they are reported Survived. `estimate` counts them
 * as Ignored, as a run that loads the module first does, and says how many it moved.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import picomatch from "picomatch"
import ts from "typescript"
import { addCounts, scoreOf } from "./mutation-counts.mjs"
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

/** A test of whether a 1-based line and column of `source` lies in code that runs only as its module loads. */
const moduleLevel = (/** @type {string} */ path, /** @type {string} */ source) => {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true)
  /** @type {Array<[number, number]>} */
  const bodies = []
  /** @param {ts.Node} node */
  const visit = (node) => {
    // a function's body runs when it is called; a class's instance field when it is constructed
    if (ts.isFunctionLike(node) || (ts.isPropertyDeclaration(node) && (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Static) === 0)) {
      bodies.push([node.getStart(file), node.getEnd()])
      return
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return (/** @type {{ line: number, column: number }} */ at) => {
    const position = file.getPositionOfLineAndCharacter(at.line - 1, at.column - 1)
    return !bodies.some(([start, end]) => start <= position && position < end)
  }
}

/**
 * A JSON report's files, or those of an event-recorder directory (`--reporters ...,event-recorder`:
 * a file a tested mutant, so a run still going or stopped early can be estimated), read with the
 * sources as they are on disk.
 */
const reportFiles = (/** @type {string} */ path) => {
  if (!statSync(path).isDirectory()) return JSON.parse(readFileSync(path, "utf8")).files
  /** @type {Record<string, { source: string, mutants: Array<unknown> }>} */
  const files = {}
  for (const name of readdirSync(path).filter((name) => name.includes("onMutantTested")).sort()) {
    const mutant = JSON.parse(readFileSync(join(path, name), "utf8"))
    files[mutant.fileName] ??= { source: readFileSync(mutant.fileName, "utf8"), mutants: [] }
    files[mutant.fileName].mutants.push(mutant)
  }
  return files
}

/** The counts of every file mutation-scores.json holds (measured whole by some run). */
const measuredCounts = () => {
  const record = JSON.parse(readFileSync(join(root, "mutation-scores.json"), "utf8"))
  /** @type {Map<string, Record<string, number>>} */
  const measured = new Map()
  for (const [path, entry] of Object.entries(record.files ?? {})) if (!excluded(path)) measured.set(path, entry.counts)
  return measured
}

const estimate = () => {
  const files = reportFiles(rest[0] ?? "")
  const ledger = readLedger()
  // --unmeasured: only the sample's files no run has measured whole since it was drawn, and the
  // whole of src estimated from them and the measured files' counts
  const unmeasuredOnly = rest.includes("--unmeasured")
  const measured = unmeasuredOnly ? measuredCounts() : new Map()
  /** @type {Map<string, Record<string, number>>} */
  const folders = new Map()
  /** @type {Record<string, number>} */
  const total = {}
  let moved = 0
  for (const [path, file] of Object.entries(files)) {
    // an event's file is absolute, in the tree Stryker ran in (a worktree, say)
    const key = path.includes("/src/") ? path.slice(path.indexOf("/src/") + 1) : repoPath(path)
    if (unmeasuredOnly && measured.has(key)) continue
    const atLoad = moduleLevel(key, file.source)
    const mutants = file.mutants.map((/** @type {{ status: string, location: { start: { line: number, column: number } } }} */ mutant) =>
      (mutant.status === "Survived" || mutant.status === "NoCoverage") && atLoad(mutant.location.start)
        ? (moved++, { ...mutant, status: "Ignored" })
        : mutant
    )
    const { counts } = countMutants(key, file.source, mutants, ledger)
    const folder = key.split("/").slice(0, key.startsWith("src/tools/") ? 3 : 2).join("/")
    if (!folders.has(folder)) folders.set(folder, {})
    addCounts(folders.get(folder) ?? {}, counts)
    addCounts(total, counts)
  }
  const row = (/** @type {string} */ name, /** @type {Record<string, number>} */ c) => {
    const { detected, undetected, score } = scoreOf(c)
    const n = detected + undetected
    const [low, high] = n === 0 ? [NaN, NaN] : wilson(detected, n)
    return `${name.padEnd(24)} ${score.toFixed(1).padStart(6)}%  ` +
      `[${low.toFixed(1)}, ${high.toFixed(1)}]  ${String(detected).padStart(4)} detected of ${String(n).padStart(4)}  ` +
      `${c.Survived ?? 0} survived, ${c.NoCoverage ?? 0} no coverage, ${c.Equivalent ?? 0} equivalent`
  }
  for (const folder of [...folders.keys()].sort()) console.log(row(folder, folders.get(folder) ?? {}))
  console.log(row("sample", total))
  console.log(`(${moved} survived or uncovered mutant(s) in module-level code counted as Ignored, as ignoreStatic does)`)
  if (unmeasuredOnly) combined(total, measured, Number(option("rate", "0.05")))
}

/**
 * The score of all of src: the measured files' detected and scored mutants as counted, plus the
 * unmeasured files' scored mutants estimated as the sample's divided by its rate, detected at the
 * sample's score (and at either end of its interval).
 */
const combined = (
  /** @type {Record<string, number>} */ sample,
  /** @type {Map<string, Record<string, number>>} */ measured,
  /** @type {number} */ rate
) => {
  /** @type {Record<string, number>} */
  const whole = {}
  for (const counts of measured.values()) addCounts(whole, counts)
  const m = scoreOf(whole)
  const s = scoreOf(sample)
  const sampled = s.detected + s.undetected
  const scored = m.detected + m.undetected
  const rest = sampled / rate
  const at = (/** @type {number} */ percent) => (100 * (m.detected + (rest * percent) / 100)) / (scored + rest)
  const [low, high] = wilson(s.detected, sampled)
  console.log(`measured: ${m.score.toFixed(2)}% of ${scored} scored mutants in ${measured.size} files`)
  console.log(`unmeasured: about ${Math.round(rest)} scored mutants (${sampled} sampled at rate ${rate}), ${s.score.toFixed(1)}% [${low.toFixed(1)}, ${high.toFixed(1)}]`)
  console.log(`all of src: about ${at(s.score).toFixed(1)}% [${at(low).toFixed(1)}, ${at(high).toFixed(1)}]`)
}

if (mode === "lines") lines()
else if (mode === "estimate") estimate()
else {
  process.stderr.write("usage: mutation-sample.mjs lines [--rate r] [--seed n] [--skip globs] | estimate report.json\n")
  process.exitCode = 2
}
