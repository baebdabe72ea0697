/**
 * Rules over the parsed source of `src` (test/sourceRules.test.ts, test/styleRules.test.ts): a
 * check per syntax node, run on every file that may break it; comments and strings are not code,
 * so what they say never counts.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const srcDir = path.join(import.meta.dirname, "..", "..", "src")

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith(".ts") ? [full] : []
  })

/** Says that `node` breaks a rule, in words. */
export type Report = (node: ts.Node, what: string) => void

/**
 * A rule: `check` sees every node of a file whose text `suspect` matches (one it does not match
 * cannot break the rule, and is not parsed). The result says where `code` breaks it, as `line: what`.
 */
export const sourceRule = (suspect: RegExp, check: (node: ts.Node, source: ts.SourceFile, report: Report) => void) =>
(fileName: string, code: string): Array<string> => {
  if (!suspect.test(code)) return []
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const report: Report = (node, what) =>
    found.push(`${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${what}`)
  const visit = (node: ts.Node): void => {
    check(node, source, report)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** Every file of `src` (how many) and where they break `rule`, as `file:line: what`. */
export const srcViolations = (rule: (fileName: string, code: string) => Array<string>) => {
  const files = sourceFiles(srcDir)
  const violations = files.flatMap((file) => rule(file, fs.readFileSync(file, "utf8")).map((v) => `${path.relative(srcDir, file)}:${v}`))
  return { files: files.length, violations }
}
