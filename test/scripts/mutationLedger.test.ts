/**
 * The mutation ledger (`mutation-ledger.json`, read by `scripts/mutation-ledger.mjs`): every entry
 * still finds its one line in its file, no file of `src/` speaks of Stryker or of mutants (that
 * bookkeeping lives in the ledger), and the score script counts a reported mutant that an entry covers
 * as equivalent, and nothing else (on a small stand-in report, `test/fixtures/mutation/`).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { countMutants, locate, readLedger, root } from "../../scripts/mutation-ledger.mjs"
import type { ReportedMutant } from "../../scripts/mutation-ledger.mjs"

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(rel)
    return entry.name.endsWith(".ts") ? [rel] : []
  })

describe("mutation-ledger.json", () => {
  const entries = readLedger()

  it("has well-formed entries: a file, mutators (`all` alone), a code line and a reason", () => {
    // the ledger started empty on Effect 4: an entry of the Effect 3 line's (tag effect3) comes over once checked against today's line
    expect(Array.isArray(entries)).toBe(true)
    for (const entry of entries) {
      const at = `${entry.file}: ${entry.code}`
      expect(entry.file, at).toMatch(/^src\/.+\.ts$/)
      expect(entry.mutators.length, at).toBeGreaterThan(0)
      for (const mutator of entry.mutators) expect(mutator, at).toMatch(/^(all|[A-Z][A-Za-z]+)$/)
      if (entry.mutators.includes("all")) expect(entry.mutators, at).toEqual(["all"])
      expect(entry.code.trim(), at).toBe(entry.code)
      expect(entry.code, at).not.toBe("")
      expect(entry.reason.trim(), at).not.toBe("")
    }
  })

  it("has no stale entry: each one's code (with its previous lines) is exactly one line of its file", () => {
    const problems: Array<string> = []
    const lines = new Map<string, ReadonlyArray<string>>()
    for (const entry of entries) {
      const file = path.join(root, entry.file)
      if (!fs.existsSync(file)) {
        problems.push(`${entry.file} is gone: ${entry.code}`)
        continue
      }
      const text = lines.get(entry.file) ?? fs.readFileSync(file, "utf8").split("\n")
      lines.set(entry.file, text)
      const found = locate(entry, text)
      if (found.length === 0) problems.push(`${entry.file}: no line is ${JSON.stringify(entry.code)} (edited? update the entry)`)
      if (found.length > 1) {
        problems.push(`${entry.file}: lines ${found.map((i) => i + 1).join(", ")} are ${JSON.stringify(entry.code)} (add or extend its previous)`)
      }
    }
    expect(problems).toEqual([])
  })
})

describe("src/", () => {
  it("keeps its mutation bookkeeping in the ledger: no file mentions Stryker or mutants", () => {
    const files = sourceFiles("src")
    expect(files.length).toBeGreaterThan(100)
    const found = files.flatMap((file) =>
      fs.readFileSync(path.join(root, file), "utf8").split("\n").flatMap((line, i) =>
        /Stryker|\bmutants?\b/i.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []
      )
    )
    expect(found).toEqual([])
  })
})

describe("countMutants (scripts/mutation-summary.mjs's counts of a report's file)", () => {
  const fixtures = path.join(root, "test/fixtures/mutation")
  const report: { files: Record<string, { source: string; mutants: ReadonlyArray<ReportedMutant> }> } =
    JSON.parse(fs.readFileSync(path.join(fixtures, "report.json"), "utf8"))
  const entries = readLedger(path.join(fixtures, "ledger.json"))
  const file = report.files["src/fixture.ts"]!
  const { contradicted, counts } = countMutants("src/fixture.ts", file.source, file.mutants, entries)

  it("counts a Survived or NoCoverage mutant on an entry's line, of its mutator, as Equivalent", () => {
    // 1: Survived, on first's line; 4: NoCoverage, on label's line
    expect(counts.Equivalent).toBe(2)
  })

  it("leaves Survived a mutant of another mutator, on another line of the same text, or on an unmarked entry", () => {
    // 2: LogicalOperator beside an entry of StringLiteral; 3: head's line, which `previous` tells apart;
    // 6: the unmarked entry's ConditionalExpression
    expect(counts.Survived).toBe(3)
  })

  it("keeps a killed mutant killed, and names an entry that covers one", () => {
    expect(counts.Killed).toBe(2)
    expect(contradicted.map(({ entry, mutant }) => [mutant.mutatorName, mutant.location.start.line, entry.reason])).toEqual([
      ["StringLiteral", 9, "a wrong entry: its mutant is killed"]
    ])
  })

  it("matches a file given by an absolute path as by its relative one", () => {
    const absolute = countMutants(path.join(root, "src/fixture.ts"), file.source, file.mutants, entries)
    expect(absolute.counts).toEqual(counts)
  })
})
