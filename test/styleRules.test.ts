/**
 * The house rules a type checker does not enforce, checked on the parsed source of `src`
 * (comments and strings do not count, so the sandbox's guest code and attack catalogs, which
 * hold `console.log` as text, are fine):
 * - no `any` type: an unknown value is `unknown` and narrowed;
 * - no cast through `unknown` (`x as unknown as T`): it silences the checker where a schema or a
 *   guard should say what the value is;
 * - no `console` in library code: the library logs through Effect (`Effect.log*`), so an
 *   application's logger decides where it goes.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const srcDir = path.join(import.meta.dirname, "..", "src")

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith(".ts") ? [full] : []
  })

/** A file in which none of these occur cannot break a rule, and is not parsed. */
const suspect = /\bany\b|\bconsole\b|\bas\s+unknown\s+as\b/

/** Where `code` (one file's text) breaks the rules, as `line: what`. */
export const styleViolationsIn = (fileName: string, code: string): Array<string> => {
  if (!suspect.test(code)) return []
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const at = (node: ts.Node, what: string) =>
    found.push(`${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${what}`)
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.AnyKeyword) at(node, "uses the type `any`")
    if (
      ts.isAsExpression(node) && ts.isAsExpression(node.expression) &&
      node.expression.type.kind === ts.SyntaxKind.UnknownKeyword
    ) {
      at(node, `casts through unknown: ${node.getText(source)}`)
    }
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "console") {
      at(node, `writes to the console: ${node.getText(source)}`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe("the source keeps the house rules", () => {
  it("no `any`, no cast through unknown, no console anywhere in src", () => {
    const files = sourceFiles(srcDir)
    expect(files.length).toBeGreaterThan(100)
    const violations = files.flatMap((file) =>
      styleViolationsIn(file, fs.readFileSync(file, "utf8")).map((v) => `${path.relative(srcDir, file)}:${v}`)
    )
    expect(violations).toEqual([])
  })

  it("the check sees each kind of breach, and not what merely looks like one", () => {
    const breaches = [
      `const x: any = 1`,
      `function f(a: Array<any>) {}`,
      `const y = value as any`,
      `const z = value as unknown as string`,
      `console.log("hi")`,
      `const warn = console.warn`,
      "const z = value as\n  unknown as string"
    ]
    for (const code of breaches) expect(styleViolationsIn("breach.ts", code), code).toHaveLength(1)
    const fine = [
      `const x: unknown = 1`,
      `const y = value as unknown`,
      `// any value; x as unknown as T; console.log in a comment`,
      `const guest = "console.log(any)"`,
      "const guest = `console.log(${n})`",
      `const anyOf = schema.anyOf; const unknownKeys = 1`,
      `Effect.log("hi")`
    ]
    for (const code of fine) expect(styleViolationsIn("fine.ts", code), code).toEqual([])
  })
})
