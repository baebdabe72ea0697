/**
 * Public APIs only: nothing in `src` reaches into Effect's private runtime, which an Effect
 * release may change without a type error (and which Effect 4 does not have). Checked on the
 * parsed source (comments and strings in them do not count):
 * - no import of a package's `internal/` or `dist/` modules (`effect`, `@effect/*`);
 * - no private member read: a property or a string key starting with `_` (other than `_tag`),
 *   or the fiber runtime's `addChild` / `removeChild`;
 * - no synchronous poll of a fiber (`pollUnsafe`, Effect 3's `unsafePoll`): the Effect 3 engine
 *   ran a handler with `Runtime.runFork` and polled it to skip the scheduler (issue 48 names it
 *   among the runtime tricks); tests may poll, `src` does not;
 * - no identity check against an Effect value (`x === Effect.void`): an effect's identity is
 *   the library's choice, not part of its API.
 */
import { describe, expect, it } from "@effect/vitest"
import ts from "typescript"
import { sourceRule, srcViolations } from "./helpers/sourceRules.js"

const privateModule = /^(effect|@effect\/[^/]+)\/(.*\/)?(internal|dist)(\/|$)/
const privateRuntimeMembers = new Set(["addChild", "removeChild", "pollUnsafe", "unsafePoll"])
const isPrivateName = (name: string) => (/^_[A-Za-z]/.test(name) && name !== "_tag") || privateRuntimeMembers.has(name)

/**
 * A file that cannot break a rule (none of these occur in it) is not parsed. `_tag`, which many
 * files read, does not make one suspect: a few files of src are parsed instead of a fifth of them.
 */
const suspect = /\b_(?!tag\b)[A-Za-z]|addChild|removeChild|pollUnsafe|unsafePoll|\/internal|\/dist\/|[!=]==\s*Effect\.|Effect\.\w+\s*[!=]==/

/** `Reflect.get(x, "_y")` and the like. */
const isReflectCall = (node: ts.Node): node is ts.CallExpression =>
  ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) &&
  ts.isIdentifier(node.expression.expression) && node.expression.expression.text === "Reflect"

/** Where `code` (one file's text) breaks the rules, as `line: what`. */
export const violationsIn = sourceRule(suspect, (node, source, at) => {
  if (
    (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined &&
    ts.isStringLiteral(node.moduleSpecifier) && privateModule.test(node.moduleSpecifier.text)
  ) {
    at(node, `imports the private module "${node.moduleSpecifier.text}"`)
  }
  if (
    ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
    node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0]) && privateModule.test(node.arguments[0].text)
  ) {
    at(node, `imports the private module "${node.arguments[0].text}"`)
  }
  if (ts.isPropertyAccessExpression(node) && isPrivateName(node.name.text)) {
    at(node, `reads the private member "${node.name.text}"`)
  }
  // a private member named by a string: `x["_fiberRefs"]`, `Reflect.get(x, "addChild")`
  if (
    ts.isStringLiteral(node) && isPrivateName(node.text) &&
    (ts.isElementAccessExpression(node.parent) || (isReflectCall(node.parent) && node.parent.arguments.includes(node)))
  ) {
    at(node, `names the private member "${node.text}"`)
  }
  if (
    ts.isBinaryExpression(node) &&
    [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(node.operatorToken.kind) &&
    [node.left, node.right].some((side) =>
      ts.isPropertyAccessExpression(side) && ts.isIdentifier(side.expression) && side.expression.text === "Effect"
    )
  ) {
    at(node, `compares an effect by identity: ${node.getText(source)}`)
  }
})

describe("the source uses public APIs only", () => {
  it("no private module, member or effect identity anywhere in src", () => {
    const { files, violations } = srcViolations(violationsIn)
    expect(files).toBeGreaterThan(100)
    expect(violations).toEqual([])
  })

  it("the check sees each kind of breach, and not what merely looks like one", () => {
    const breaches = [
      `import * as core from "effect/internal/core"`,
      `export { x } from "@effect/platform/dist/esm/internal/fileSystem.js"`,
      `const m = await import("effect/internal/fiberRuntime")`,
      `const refs = fiber._fiberRefs`,
      `const add = Reflect.get(parent, "addChild")`,
      `const exit = child.pollUnsafe()`,
      `const exit = child.unsafePoll()`,
      `const refs = fiber["_fiberRefs"]`,
      `if (checked === Effect.void) {}`,
      `if (Effect.void !== checked) {}`
    ]
    for (const code of breaches) expect(violationsIn("breach.ts", code), code).toHaveLength(1)
    const fine = [
      `import * as Effect from "effect/Effect"`,
      `import { Ajv2020 } from "ajv/dist/2020.js"`,
      `const tag = error._tag; const t = Reflect.get(error, "_tag")`,
      // parsed (for `_local`), and still fine: `_tag`, and a name starting with "_" that is no member read
      `const tag = error._tag; const _local = Reflect.get(error, "_tag")`,
      `// fiber._fiberRefs and Reflect.get(parent, "addChild") in a comment`,
      `const text = "_fiberRefs is private"`,
      `const safe = name.replace(/-/g, "_"); log("_private")`,
      `if (Effect.isEffect(x)) {}`
    ]
    for (const code of fine) expect(violationsIn("fine.ts", code), code).toEqual([])
  })
})
