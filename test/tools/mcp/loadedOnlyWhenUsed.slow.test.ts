/**
 * Importing the library (`src/index.ts`) or starting the command line (`src/cli/main.ts`) never
 * loads the MCP SDK or our MCP modules: `ToolSystem`'s `mcpServers` option loads the bridge with
 * a dynamic import when its layer is built, `--mcp-config` loads the configuration reader when
 * given, and the `mcp` command loads the server when run.
 *
 * The SDK is ES modules,
 * which Node's `require.cache` does not list (the way the Redis import test sees ioredis), so
 * this follows what Node would load instead: the static imports from the entry, read with
 * TypeScript's parser. Under `verbatimModuleSyntax` only `import type` / `export type` are
 * erased (`import { type X }` stays as `import {}`, which loads the module), and `import()`
 * is not followed.
 *
 * In the slow lane: loading TypeScript and parsing the import graph costs about a second of CPU
 * (1114 ms in a fast-lane run), over the fast lane's 0.4 s rule.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../..")

/** The file a relative specifier of ours names (`./x.js` is `./x.ts`). */
const resolveOurs = (from: string, specifier: string): string => {
  const base = path.resolve(path.dirname(from), specifier)
  for (const candidate of [base.replace(/\.js$/, ".ts"), base, `${base}.ts`, path.join(base, "index.ts")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate
  }
  throw new Error(`${specifier} (from ${path.relative(root, from)}) names no file`)
}

/** The specifiers a module loads when it is evaluated: its imports and re-exports that are not type-only. */
const staticSpecifiers = (file: string): ReadonlyArray<string> => {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest)
  const specifiers: Array<string> = []
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (statement.importClause?.isTypeOnly === true) continue
      if (ts.isStringLiteral(statement.moduleSpecifier)) specifiers.push(statement.moduleSpecifier.text)
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.isTypeOnly || statement.moduleSpecifier === undefined) continue
      if (ts.isStringLiteral(statement.moduleSpecifier)) specifiers.push(statement.moduleSpecifier.text)
    }
  }
  return specifiers
}

/** Every module of ours and every package specifier that loading `entry` loads. */
const loadedBy = (entry: string) => {
  const ours = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (ours.has(file)) return
    ours.add(file)
    for (const specifier of staticSpecifiers(file)) {
      if (specifier.startsWith(".")) visit(resolveOurs(file, specifier))
      else packages.add(specifier)
    }
  }
  visit(path.join(root, entry))
  return { ours: [...ours].map((file) => path.relative(root, file)), packages: [...packages] }
}

const mcpPackages = (packages: ReadonlyArray<string>) => packages.filter((p) => p.startsWith("@modelcontextprotocol/"))

describe("the MCP code is loaded only when used", () => {
  it("importing the library loads neither the MCP SDK nor our MCP modules", () => {
    const { ours, packages } = loadedBy("src/index.ts")
    // the walk did reach the facade and the layer that imports the bridge when asked
    expect(ours).toEqual(expect.arrayContaining(["src/services/ToolSystem.ts", "src/layers/ToolSystem.ts"]))
    expect(mcpPackages(packages)).toEqual([])
    expect(ours.filter((file) => file.startsWith("src/tools/mcp/") || file === "src/services/McpBridge.ts")).toEqual([])
  })

  it("starting the command line loads neither: --mcp-config and the mcp command import them when used", () => {
    const { ours, packages } = loadedBy("src/cli/main.ts")
    expect(ours).toEqual(expect.arrayContaining(["src/cli/commands.ts", "src/cli/common.ts"]))
    expect(mcpPackages(packages)).toEqual([])
    expect(ours.filter((file) => file.startsWith("src/tools/mcp/") || file === "src/services/McpBridge.ts")).toEqual([])
  })

  it("the check sees the SDK where it is loaded: the bridge's service and the ./mcp entry", () => {
    expect(mcpPackages(loadedBy("src/services/McpBridge.ts").packages).length).toBeGreaterThan(0)
    const entry = mcpPackages(loadedBy("src/tools/mcp/index.ts").packages)
    expect(entry).toEqual(expect.arrayContaining(["@modelcontextprotocol/server/stdio", "@modelcontextprotocol/client"]))
    // SDK v2 only: the 1.x SDK is a dev dependency (the tests' 2025-era clients and fixture servers)
    expect(entry.filter((p) => p.startsWith("@modelcontextprotocol/sdk"))).toEqual([])
  })
})
