// @ts-check
/**
 * The public surface, read from the sources: the package's entries (`exports` in package.json,
 * each `types` file's source under `src/`) and every declaration a user can reach through one,
 * following re-exports (`export { a } from`, `export { imported }`, `export *`,
 * `export * as ns`) to the declaration itself. Parsed, never type-checked: it runs in a fast
 * test (test/scripts/apiSurface.test.ts, the whole surface in apiSurface.slow.test.ts) in a
 * fraction of a second.
 *
 * What it checks (`surfaceProblems`):
 * - every public declaration carries `@since` and `@category` (one of `CATEGORIES`), and so
 *   does each `export * as ns` of an entry (the namespace's own entry in the reference);
 * - no public declaration is marked `@internal`;
 * - every other export of a module an entry re-exports from is either documented the same way
 *   or marked `@internal` (exported for the library's own modules, not part of the API).
 *
 * The API reference (`docs/api/`, scripts/docs-api.mjs) documents the same entries.
 */
import { readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

/** The categories of the reference, as Effect's own modules name them. */
export const CATEGORIES = [
  "constants",
  "constructors",
  "conversions",
  "decoding",
  "errors",
  "exports",
  "guards",
  "layers",
  "models",
  "running",
  "schemas",
  "services",
  "tools",
  "utils"
]

/**
 * The package's entries: subpath (`"."`, `"./mcp"`, ...) and source file (relative to the root),
 * from the `types` of each `exports` entry (`./dist/x.d.ts` is built from `src/x.ts`).
 * @param {string} [dir] the package's directory
 * @returns {Array<{ subpath: string, source: string }>}
 */
export const entries = (dir = root) => {
  /** @type {{ exports: Record<string, string | { types?: string }> }} */
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  return Object.entries(pkg.exports).flatMap(([subpath, target]) =>
    typeof target === "object" && target.types !== undefined
      ? [{ subpath, source: target.types.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts") }]
      : []
  )
}

/**
 * @typedef {{ kind: "local", name: string, node: ts.Node, nodes: Array<ts.Node> }
 *   | { kind: "reexport", name: string, from: string, imported: string, node: ts.Node }
 *   | { kind: "star", from: string, node: ts.Node }
 *   | { kind: "namespace", name: string, from: string, node: ts.Node }} ExportItem
 */

/** @type {Map<string, ts.SourceFile>} */
const parsed = new Map()

/** @param {string} file relative to the root @returns {ts.SourceFile} */
const sourceOf = (file) => {
  let source = parsed.get(file)
  if (source === undefined) {
    source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true)
    parsed.set(file, source)
  }
  return source
}

/** A relative module specifier of `from` as a source file (`./x.js` is `x.ts`). */
const resolveModule = (/** @type {string} */ from, /** @type {string} */ specifier) =>
  relative(root, resolve(root, dirname(from), specifier.replace(/\.js$/, ".ts")))

/** @param {ts.Node} node */
const isExported = (node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)

/**
 * What a module exports, item by item, as written (packages' modules are not followed).
 * @param {string} file
 * @returns {Array<ExportItem>}
 */
export const exportsOf = (file) => {
  const source = sourceOf(file)
  /** @type {Map<string, { from: string, imported: string }>} */
  const imports = new Map()
  /** every declaration of a name: a value and a type may share it (`McpToolEvent`) */
  /** @type {Map<string, Array<ts.Node>>} */
  const locals = new Map()
  /** @param {string} name @param {ts.Node} node */
  const declare = (name, node) => locals.set(name, [...(locals.get(name) ?? []), node])
  /** @type {Array<ExportItem>} */
  const items = []
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const specifier = statement.moduleSpecifier.text
      const bindings = statement.importClause?.namedBindings
      if (specifier.startsWith(".") && bindings !== undefined && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          imports.set(element.name.text, {
            from: resolveModule(file, specifier),
            imported: (element.propertyName ?? element.name).text
          })
        }
      }
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) declare(declaration.name.text, statement)
      }
    } else if (
      (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement) || ts.isModuleDeclaration(statement)) &&
      statement.name !== undefined && ts.isIdentifier(statement.name)
    ) {
      // the first of a function's overloads carries its documentation
      const previous = locals.get(statement.name.text) ?? []
      if (!(ts.isFunctionDeclaration(statement) && previous.some((node) => ts.isFunctionDeclaration(node)))) {
        declare(statement.name.text, statement)
      }
    }
  }
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const specifier = statement.moduleSpecifier
      const from = specifier !== undefined && ts.isStringLiteral(specifier) && specifier.text.startsWith(".")
        ? resolveModule(file, specifier.text)
        : undefined
      const clause = statement.exportClause
      if (clause === undefined) {
        if (from !== undefined) items.push({ kind: "star", from, node: statement })
      } else if (ts.isNamespaceExport(clause)) {
        if (from !== undefined) items.push({ kind: "namespace", name: clause.name.text, from, node: statement })
      } else {
        for (const element of clause.elements) {
          const name = element.name.text
          const local = (element.propertyName ?? element.name).text
          if (from !== undefined) items.push({ kind: "reexport", name, from, imported: local, node: element })
          else {
            const imported = imports.get(local)
            if (imported !== undefined) items.push({ kind: "reexport", name, ...imported, node: element })
            else {
              const nodes = locals.get(local)
              if (nodes?.[0] !== undefined) items.push({ kind: "local", name, node: nodes[0], nodes })
            }
          }
        }
      }
    } else if (isExported(statement)) {
      const names = ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []))
        : [nameOf(statement)]
      for (const name of names) {
        const nodes = locals.get(name) ?? []
        // one item per name, at its first declaration, carrying them all
        if (nodes[0] === statement) items.push({ kind: "local", name, node: statement, nodes })
      }
    }
  }
  return items
}

/** @param {ts.Statement} statement */
const nameOf = (statement) => {
  const name = "name" in statement ? statement.name : undefined
  return name !== undefined && name !== null && typeof name === "object" && "text" in name && typeof name.text === "string"
    ? name.text
    : ""
}

/**
 * The JSDoc block tags on a node (for a specifier, on the specifier), by name.
 * @param {ts.Node} node
 * @returns {Map<string, string>}
 */
export const tagsOf = (node) => {
  /** @type {Map<string, string>} */
  const tags = new Map()
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc)
  for (const doc of docs.slice(-1)) {
    for (const tag of doc.tags ?? []) {
      const text = typeof tag.comment === "string" ? tag.comment : ts.getTextOfJSDocComment(tag.comment) ?? ""
      tags.set(tag.tagName.text, text.trim())
    }
  }
  return tags
}

/**
 * @typedef {{ file: string, name: string, node: ts.Node, nodes: Array<ts.Node> }} Declaration
 */

/**
 * Where a module's export `name` is declared, through its re-exports; `undefined` for a name
 * that leads out of the sources (a package's) or to nothing.
 * @param {string} file
 * @param {string} name
 * @param {Set<string>} [seen]
 * @returns {Declaration | undefined}
 */
const declarationOf = (file, name, seen = new Set()) => {
  const key = `${file}#${name}`
  if (seen.has(key)) return undefined
  seen.add(key)
  for (const item of exportsOf(file)) {
    if (item.kind === "local" && item.name === name) return { file, name, node: item.node, nodes: item.nodes }
    if (item.kind === "namespace" && item.name === name) return { file, name, node: item.node, nodes: [item.node] }
    if (item.kind === "reexport" && item.name === name) return declarationOf(item.from, item.imported, seen)
  }
  for (const item of exportsOf(file)) {
    if (item.kind === "star") {
      const found = declarationOf(item.from, name, seen)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * The names a module exports, with `export *` expanded.
 * @param {string} file
 * @param {Set<string>} [seen]
 * @returns {Array<string>}
 */
const namesOf = (file, seen = new Set()) => {
  if (seen.has(file)) return []
  seen.add(file)
  return exportsOf(file).flatMap((item) => (item.kind === "star" ? namesOf(item.from, seen) : [item.name]))
}

/**
 * Every public declaration: each export of each entry, and each export of every module an
 * entry exports as a namespace, resolved to where it is declared. Keyed by `file#name`; `via`
 * is the first public name that reaches it (`effect-tool-system/mcp#McpBridge`).
 * @param {Array<{ subpath: string, source: string }>} [list]
 * @returns {Map<string, Declaration & { via: string }>}
 */
export const publicDeclarations = (list = entries()) => {
  /** @type {Map<string, Declaration & { via: string }>} */
  const found = new Map()
  /** @param {string} file @param {string} prefix @param {Set<string>} seen */
  const visit = (file, prefix, seen) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const name of namesOf(file)) {
      const declaration = declarationOf(file, name)
      if (declaration === undefined) continue
      const via = `${prefix}${name}`
      const key = `${declaration.file}#${declaration.name}`
      if (!found.has(key)) found.set(key, { ...declaration, via })
      if (ts.isExportDeclaration(declaration.node)) {
        // a namespace: every export of its module is public, as `ns.name`
        const target = exportsOf(declaration.file).find((item) => item.kind === "namespace" && item.name === declaration.name)
        if (target !== undefined && target.kind === "namespace") visit(target.from, `${via}.`, new Set(seen))
      }
    }
  }
  for (const { source, subpath } of list) {
    visit(source, `${subpath === "." ? "effect-tool-system" : `effect-tool-system${subpath.slice(1)}`}#`, new Set())
  }
  return found
}

/**
 * What breaks the rules at the top of this file, one line each (`file: name: problem`).
 * @param {Array<{ subpath: string, source: string }>} [list]
 * @returns {Array<string>}
 */
export const surfaceProblems = (list = entries()) => {
  /** @type {Array<string>} */
  const problems = []
  const publics = publicDeclarations(list)
  /** @param {string} file @param {string} name @param {ts.Node} node @param {string} why */
  const checkDocumented = (file, name, node, why) => {
    const tags = tagsOf(node)
    if (ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc).every((doc) => doc.comment === undefined)) {
      problems.push(`${file}: ${name}: no description (${why})`)
    }
    const since = tags.get("since")
    const category = tags.get("category")
    if (since === undefined || !/^\d+\.\d+\.\d+$/.test(since)) problems.push(`${file}: ${name}: no @since x.y.z (${why})`)
    if (category === undefined) problems.push(`${file}: ${name}: no @category (${why})`)
    else if (!CATEGORIES.includes(category)) problems.push(`${file}: ${name}: @category ${category} is not one of ${CATEGORIES.join(", ")}`)
    if (tags.has("internal")) problems.push(`${file}: ${name}: public but marked @internal (${why})`)
  }
  for (const declaration of publics.values()) {
    for (const node of declaration.nodes) {
      checkDocumented(declaration.file, declaration.name, node, `public as ${declaration.via}`)
    }
  }
  // the other exports of the modules the entries re-export from
  const publicKeys = new Set(publics.keys())
  const direct = new Set(
    list.flatMap(({ source }) => exportsOf(source).flatMap((item) => (item.kind === "local" ? [] : [item.from])))
  )
  for (const file of direct) {
    for (const item of exportsOf(file)) {
      if (item.kind === "star") continue
      const declaration = declarationOf(file, item.name)
      if (declaration !== undefined && publicKeys.has(`${declaration.file}#${declaration.name}`)) continue
      const tags = tagsOf(item.node)
      if (tags.has("internal")) continue
      if (!tags.has("since") || !tags.has("category")) {
        problems.push(`${file}: ${item.name}: exported but neither documented (@since, @category) nor @internal`)
      }
    }
  }
  return problems
}
