// @ts-check
/**
 * The files `npm run mutate` mutates (stryker.config.mjs's `mutate` patterns, `!` ones left out),
 * for the scripts that add runs up (mutation-summary.mjs) and draw samples (mutation-sample.mjs).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import picomatch from "picomatch"
import config from "../stryker.config.mjs"
import { root } from "./mutation-ledger.mjs"

const patterns = config.mutate ?? []
/** A path (from the project's root) that a `mutate` pattern names. */
export const included = picomatch(patterns.filter((p) => !p.startsWith("!")))
/** A path that a `!` pattern of `mutate` leaves out. */
export const excluded = picomatch(patterns.filter((p) => p.startsWith("!")).map((p) => p.slice(1)))

/** Every `.ts` file under `src/`, from the project's root. */
export const sourceFiles = () => {
  /** @type {Array<string>} */
  const found = []
  /** @param {string} dir */
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (path.endsWith(".ts")) found.push(relative(root, path))
    }
  }
  walk(join(root, "src"))
  return found.sort()
}

/** A file of types and re-exports only has no mutant, so no run reports it. */
export const hasCode = (/** @type {string} */ path) =>
  /^\s*(?:export\s+)?(?:const|let|function|class|async)\b|^\s*export\s+default\b/m.test(readFileSync(join(root, path), "utf8"))
