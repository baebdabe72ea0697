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
import ts from "typescript"
import { sourceRule, srcViolations } from "./helpers/sourceRules.js"

/** Where `code` (one file's text) breaks the rules, as `line: what` (a file in which none of the words occur is not parsed). */
export const styleViolationsIn = sourceRule(/\bany\b|\bconsole\b|\bas\s+unknown\s+as\b/, (node, source, at) => {
  if (node.kind === ts.SyntaxKind.AnyKeyword) at(node, "uses the type `any`")
  if (ts.isAsExpression(node) && ts.isAsExpression(node.expression) && node.expression.type.kind === ts.SyntaxKind.UnknownKeyword) {
    at(node, `casts through unknown: ${node.getText(source)}`)
  }
  if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "console") {
    at(node, `writes to the console: ${node.getText(source)}`)
  }
})

describe("the source keeps the house rules", () => {
  it("no `any`, no cast through unknown, no console anywhere in src", () => {
    const { files, violations } = srcViolations(styleViolationsIn)
    expect(files).toBeGreaterThan(100)
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
