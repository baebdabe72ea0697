/**
 * Replaces `node:worker_threads`' `Worker` for every Worker started after the call (the ESM
 * bindings too, through `syncBuiltinESMExports`): how a test gets hold of a pool's Workers, or
 * starts them differently, since no pool hands one out.
 */
import { createRequire, syncBuiltinESMExports } from "node:module"
import type { Worker } from "node:worker_threads"

/** Puts `replace(original)` in place of `Worker`; returns what puts the original back. */
export const replaceWorker = (replace: (original: typeof Worker) => typeof Worker): () => void => {
  const threads: { Worker: typeof Worker } = createRequire(import.meta.url)("node:worker_threads")
  const original = threads.Worker
  threads.Worker = replace(original)
  syncBuiltinESMExports()
  return () => {
    threads.Worker = original
    syncBuiltinESMExports()
  }
}
