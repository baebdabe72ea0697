/**
 * The library as `npm run build` lays it out, made quickly for tests that run it in a child
 * `node` the way users do (no tsx): every `src/**\/*.ts` transpiled on its own with TypeScript
 * (the project is `isolatedModules`, so no type information is needed) into `dist/`, other
 * files copied, beside a `package.json` with `"type": "module"` and a link to this
 * repository's `node_modules`. The Workers then start from the compiled `worker.js` and
 * `pdfWorker.js`, as in the package.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

const copyTree = (from: string, to: string): void => {
  fs.mkdirSync(to, { recursive: true })
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue
    const source = path.join(from, entry.name)
    if (entry.isDirectory()) {
      copyTree(source, path.join(to, entry.name))
    } else if (entry.name.endsWith(".ts")) {
      const js = ts.transpileModule(fs.readFileSync(source, "utf8"), {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
        fileName: source
      }).outputText
      fs.writeFileSync(path.join(to, entry.name.replace(/\.ts$/, ".js")), js)
    } else {
      fs.copyFileSync(source, path.join(to, entry.name))
    }
  }
}

/** Builds the compiled library under `dir` and returns the path of its `dist/` directory. */
export const compileLibrary = (dir: string): string => {
  const dist = path.join(dir, "dist")
  copyTree(path.join(root, "src"), dist)
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }))
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir")
  return dist
}
