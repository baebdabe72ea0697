// @ts-check
/**
 * A StrykerJS ignorer plugin (`ignorers: ["ledger"]` in stryker.config.mjs): every mutant of a
 * statement that a `mutators: ["all"]` entry of mutation-ledger.json locates is ignored, with the
 * entry's reason, as a `// Stryker disable all` range around it did.
 *
 * Only `all` entries: an ignorer ignores a node with every mutant inside it, whatever its mutator
 * (Stryker's `Ignorer.shouldIgnore` sees a node, never a mutator), so an entry of some mutators only
 * cannot be one; those are counted by scripts/mutation-summary.mjs instead.
 */
import { declareValuePlugin, PluginKind } from "@stryker-mutator/api/plugin"
import { locate, readLedger, repoPath } from "./mutation-ledger.mjs"

const entries = readLedger().filter((e) => e.unmarked !== true && e.mutators.includes("all"))

/**
 * What the ignorer reads of Babel's node path: the node's start line, and the file being instrumented
 * (Stryker's transformer wraps the AST in a Babel `File` named after it, holding its text).
 *
 * @typedef {{
 *   node: { loc?: { start: { line: number } } | null },
 *   hub?: { file?: { opts?: { filename?: string }, code?: string } }
 * }} BabelPath
 */

/** Per file: the 1-based lines whose statement is ignored, with the reason. @type {Map<string, Map<number, string>>} */
const lines = new Map()
/** @param {string} file @param {string} code */
const ignoredLines = (file, code) => {
  const key = repoPath(file)
  let found = lines.get(key)
  if (found === undefined) {
    const text = code.split("\n")
    found = new Map(entries.filter((e) => e.file === key).flatMap((e) => locate(e, text).map((i) => [i + 1, e.reason])))
    lines.set(key, found)
  }
  return found
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, "ledger", {
    /** The outermost node that begins on a located line (Babel walks parents first): it and all inside it. */
    shouldIgnore(path) {
      const { node, hub } = /** @type {BabelPath} */ (path)
      const file = hub?.file?.opts?.filename
      const code = hub?.file?.code
      const line = node.loc?.start.line
      if (file === undefined || code === undefined || line === undefined) return undefined
      return ignoredLines(file, code).get(line)
    }
  })
]
