#!/usr/bin/env node
/**
 * The executable as shipped (`dist/cli/main.cjs`, the package's `bin`): runs the command-line
 * bundle `cli.cjs` beside it through V8's code cache (`codeCache.ts`), so that a start after
 * the first one skips most of compiling the bundle. Kept to Node's builtins: it must cost
 * nothing itself. `scripts/bundle.mjs` builds both files; from the sources, `main.ts` runs
 * directly.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as vm from "node:vm"
import { cacheDisabled, cacheFileOf, digestOf, readCache, writeCache } from "./codeCache.js"

const dir = dirname(fileURLToPath(import.meta.url))
const bundle = join(dir, "cli.cjs")
const cacheFile = cacheFileOf(bundle, process.argv[2])

// hashed as read: hashing the string would encode it to UTF-8 again (~7 ms of a ~300 ms start)
const bytes = readFileSync(bundle)
const digest = cacheDisabled() ? undefined : digestOf(bytes)
// the bundle as Node's CommonJS loader would wrap it (its first line, the `#!`, commented out)
const source = bytes.toString("utf8").replace(/^#!/, "//")
const cachedData = digest === undefined ? undefined : readCache(cacheFile, bundle, digest)
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: bundle,
  ...(cachedData === undefined ? {} : { cachedData }),
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
})

if (digest !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
  // at exit, so that the functions this run compiled are in the cache too
  process.once("exit", () => writeCache(cacheFile, bundle, digest, script.createCachedData()))
}

const run: unknown = script.runInThisContext()
if (typeof run !== "function") throw new Error(`${bundle} did not compile to a module function`)
const module = { exports: {} }
run(module.exports, createRequire(bundle), module, bundle, dir)
