/**
 * Replaces one export of a Node built-in module (`node:fs`'s `rename`, `node:worker_threads`'
 * `Worker`) for every use after the call, the ESM bindings too (through
 * `syncBuiltinESMExports`): how a test reaches into what the library does with Node, without
 * touching the library's own code.
 */
import { createRequire, syncBuiltinESMExports } from "node:module"

/** Puts `replace(original)` in place of `specifier`'s export `name`; returns what puts the original back. */
export const replaceBuiltinExport = <A>(specifier: string, name: string, replace: (original: A) => A): () => void => {
  const exports: Record<string, A> = createRequire(import.meta.url)(specifier)
  const original = exports[name]
  if (original === undefined) throw new Error(`${specifier} has no export "${name}"`)
  exports[name] = replace(original)
  syncBuiltinESMExports()
  return () => {
    exports[name] = original
    syncBuiltinESMExports()
  }
}
