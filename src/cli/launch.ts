#!/usr/bin/env node
/**
 * The executable as shipped (`dist/cli/main.cjs`, the package's `bin`): runs the command-line
 * bundle `cli.cjs` beside it through V8's code cache (`codeCache.ts`), so that a start after
 * the first one skips most of compiling the bundle. The side bundles `cli.cjs` requires beside
 * itself (`require("./mcp-sdk.cjs")`, the MCP SDK, ~1 MB: `scripts/bundle.mjs`) run through a
 * cache of their own too: compiled without one, the SDK is ~50 ms of the `mcp` command's
 * start. Kept to Node's builtins: it must cost nothing itself. `scripts/bundle.mjs` builds the
 * files; from the sources, `main.ts` runs directly.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as vm from "node:vm"
import { cacheDisabled, cacheFileOf, digestOf, readCache, writeCache } from "./codeCache.js"

const dir = dirname(fileURLToPath(import.meta.url))
const command = process.argv[2]

/** A module as Node's CommonJS loader gives it to the code it wraps. */
interface Module {
  exports: unknown
}

/**
 * Runs the CommonJS file `file` as Node's loader would (wrapped, its `#!` line commented out),
 * compiled from its code cache for this command when there is a usable one, and leaves a cache
 * at exit when there was none (or V8 rejected it). `module.exports` is filled as it runs.
 */
const runCached = (file: string, module: Module, require: NodeJS.Require): void => {
  const cacheFile = cacheFileOf(file, command)
  // hashed as read: hashing the string would encode it to UTF-8 again (~7 ms of a ~300 ms start)
  const bytes = readFileSync(file)
  const digest = cacheDisabled() ? undefined : digestOf(bytes)
  const source = bytes.toString("utf8").replace(/^#!/, "//")
  const cachedData = digest === undefined ? undefined : readCache(cacheFile, file, digest)
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  if (digest !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    // at exit, so that the functions this run compiled are in the cache too
    process.once("exit", () => writeCache(cacheFile, file, digest, script.createCachedData()))
  }
  const run: unknown = script.runInThisContext()
  if (typeof run !== "function") throw new Error(`${file} did not compile to a module function`)
  run(module.exports, require, module, file, dirname(file))
}

/** A side bundle: a file beside the bundle, named as `./name.cjs`. */
const SIDE_BUNDLE = /^\.\/[^/\\]+\.cjs$/

/** The side bundles run so far, by file: required twice, a module is the same module (one SDK, not two). */
const sideModules = new Map<string, Module>()

/**
 * The `require` of `cli.cjs`: Node's, relative to the bundle, but for the side bundles beside
 * it, which run through their own cache (once each: later requires get the same exports).
 */
const bundleRequire = (bundle: string): NodeJS.Require => {
  const nodeRequire = createRequire(bundle)
  const sideRequire = (id: string): unknown => {
    if (!SIDE_BUNDLE.test(id)) return nodeRequire(id)
    const file = join(dirname(bundle), basename(id))
    const known = sideModules.get(file)
    if (known !== undefined) return known.exports
    const module: Module = { exports: {} }
    // registered before it runs, as Node's loader does: a cycle gets the exports so far
    sideModules.set(file, module)
    try {
      runCached(file, module, createRequire(file))
    } catch (error) {
      sideModules.delete(file) // as Node's loader: a module that threw is not kept
      throw error
    }
    return module.exports
  }
  return Object.assign(sideRequire, {
    resolve: nodeRequire.resolve,
    cache: nodeRequire.cache,
    extensions: nodeRequire.extensions,
    main: nodeRequire.main
  })
}

const bundle = join(dir, "cli.cjs")
runCached(bundle, { exports: {} }, bundleRequire(bundle))
