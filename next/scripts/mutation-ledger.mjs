// @ts-check
/**
 * The mutation ledger, `mutation-ledger.json`: the equivalent mutants of `src/` (no test could ever
 * tell them apart from the original), each with its reason, kept out of the source so that the
 * source's comments say why the code is as it is, never which mutants it has.
 *
 * An entry names its file, its Stryker mutators and its place: `code`, the trimmed text of the line
 * the mutant starts on (where Stryker reports it), and, for a line whose text occurs more than once
 * in the file, `previous`: the trimmed text of the nearest line above it that is neither blank nor a
 * comment (or of the nearest few, one per line of `previous`, top first, where one does not tell the
 * places apart). Text, not a line number, so that an entry survives edits elsewhere in the file; one
 * that no longer finds its line, or finds more than one, fails test/scripts/mutationLedger.test.ts.
 *
 * - a plain entry counts the mutants of its mutators on its line as equivalent: Stryker reports them
 *   Survived (or NoCoverage), and scripts/mutation-summary.mjs leaves them out of the score;
 * - `mutators: ["all"]`: every mutant of the statement that begins on the line, ignored by Stryker
 *   itself through scripts/mutation-ignorer.mjs (reported Ignored, never run);
 * - `unmarked: true`: an equivalent mutant that shares its line and mutator with a killable one, so
 *   no entry can single it out; it counts as Survived, and the entry explains it.
 *
 * Used by scripts/mutation-summary.mjs, scripts/mutation-ignorer.mjs, scripts/mutation-marks.mjs and
 * the ledger's test.
 */
import { readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
export const ledgerPath = join(root, "mutation-ledger.json")

/**
 * @typedef {{
 *   file: string, mutators: Array<string>, code: string, previous?: string, reason: string, unmarked?: boolean
 * }} LedgerEntry
 */

/** The ledger's entries. @param {string} [path] @returns {Array<LedgerEntry>} */
export const readLedger = (path = ledgerPath) => JSON.parse(readFileSync(path, "utf8")).entries

/** A path relative to the repository root, whether given absolute or relative. @param {string} path */
export const repoPath = (path) => relative(root, resolve(root, path))

/** Whether a line is blank or a comment line (`//`, `/*`, or inside a block comment). @param {string} line */
const isCodeLess = (line) => /^\s*(\/\/|\/\*|\*|$)/.test(line)

/**
 * The trimmed text of the `count` nearest lines above `index` that are neither blank nor comments, top
 * first, one a line (fewer at the top of the file).
 *
 * @param {ReadonlyArray<string>} lines @param {number} index @param {number} [count]
 */
export const previousCode = (lines, index, count = 1) => {
  /** @type {Array<string>} */
  const found = []
  for (let i = index - 1; i >= 0 && found.length < count; i--) if (!isCodeLess(lines[i] ?? "")) found.unshift((lines[i] ?? "").trim())
  return found.join("\n")
}

/**
 * The lines (0-based) an entry stands for in a file's lines: those whose trimmed text is its `code`
 * and, when it has one, whose nearest code lines above are its `previous`.
 *
 * @param {Pick<LedgerEntry, "code" | "previous">} entry @param {ReadonlyArray<string>} lines
 */
export const locate = (entry, lines) => {
  const count = entry.previous?.split("\n").length ?? 0
  const found = []
  for (let i = 0; i < lines.length; i++) {
    if ((lines[i] ?? "").trim() !== entry.code) continue
    if (entry.previous === undefined || previousCode(lines, i, count) === entry.previous) found.push(i)
  }
  return found
}

/**
 * Which ledger entry, if any, counts a mutant as equivalent: a plain entry (not `unmarked`, not
 * `all`) of the mutant's file and mutator that stands for the line the mutant starts on.
 *
 * @param {ReadonlyArray<LedgerEntry>} entries
 * @returns {(file: string, source: string) => (mutatorName: string, line: number) => LedgerEntry | undefined}
 *   per file (its source as mutated), then per mutant (its 1-based start line, as Stryker's report has it)
 */
export const equivalents = (entries) => (file, source) => {
  const key = repoPath(file)
  const own = entries.filter((e) => e.file === key && e.unmarked !== true && !e.mutators.includes("all"))
  if (own.length === 0) return () => undefined
  const lines = source.split("\n")
  /** @type {Map<number, Array<LedgerEntry>>} */
  const byLine = new Map()
  for (const entry of own) for (const i of locate(entry, lines)) byLine.set(i + 1, [...(byLine.get(i + 1) ?? []), entry])
  return (mutatorName, line) => byLine.get(line)?.find((e) => e.mutators.includes(mutatorName))
}

/**
 * @typedef {{ mutatorName: string, status: string, location: { start: { line: number, column: number } } }} ReportedMutant
 *   a mutant of Stryker's JSON report (mutation-testing-report-schema: 1-based lines and columns)
 */

/**
 * A report file's mutant counts by status, with the ledger applied: a Survived or NoCoverage mutant
 * that a ledger entry counts as equivalent is counted `Equivalent` instead (a test could never kill
 * it, so it is no gap in the tests, reached or not). A Killed or Timeout mutant that an entry covers
 * keeps its status and is returned in `contradicted`: the entry covers more than its equivalent mutant.
 *
 * @param {string} file @param {string} source @param {ReadonlyArray<ReportedMutant>} mutants
 * @param {ReadonlyArray<LedgerEntry>} entries
 */
export const countMutants = (file, source, mutants, entries) => {
  const entryOf = equivalents(entries)(file, source)
  /** @type {Record<string, number>} */
  const counts = {}
  /** @type {Array<{ mutant: ReportedMutant, entry: LedgerEntry }>} */
  const contradicted = []
  for (const mutant of mutants) {
    const entry = entryOf(mutant.mutatorName, mutant.location.start.line)
    let status = mutant.status
    if (entry !== undefined && (status === "Survived" || status === "NoCoverage")) status = "Equivalent"
    else if (entry !== undefined && (status === "Killed" || status === "Timeout")) contradicted.push({ mutant, entry })
    counts[status] = (counts[status] ?? 0) + 1
  }
  return { counts, contradicted }
}
