/**
 * The library as `npm run build` lays it out, made for tests that run it in a child `node` the
 * way users do (no tsx): `scripts/bundle.mjs --dist` bundles the sources into `dir/dist` (the
 * library's entries, `index.js` and the others, with `worker.js` and `pdfWorker.js` beside
 * them, and the command line in `dist/cli/`, its `bin` `main.cjs`), beside a `package.json`
 * with `"type": "module"` and a link to the project's `node_modules`, where the bundles' external
 * packages (effect, pdf.js, QuickJS, ...) are found. The Workers then start from the bundled
 * `worker.js` and `pdfWorker.js`, as in the package.
 *
 * The package ships bundles, so the test runs those (the Effect 3 line's helper, tag effect3,
 * transpiled each source file by itself into `dist/`, its CLI `dist/cli/main.js`). tsc's `.d.ts`
 * files are not made (nothing here reads them). The working tree's `dist/` is neither read nor written.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

/** Builds the compiled library under `dir` and returns the path of its `dist/` directory. */
export const compileLibrary = async (dir: string): Promise<string> => {
  const dist = path.join(dir, "dist")
  fs.mkdirSync(dir, { recursive: true })
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(root, "scripts/bundle.mjs"), "--dist", dist],
      { cwd: root, encoding: "utf8", timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error === null ? resolve() : reject(new Error(`scripts/bundle.mjs failed: ${error.message}\n${stdout}\n${stderr}`))
    )
  })
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }))
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir")
  return dist
}
