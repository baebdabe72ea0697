/**
 * Replaces `node:worker_threads`' `Worker` for every Worker started after the call (see
 * `replaceBuiltin.ts`): how a test gets hold of a pool's Workers, or starts them differently,
 * since no pool hands one out.
 */
import type { Worker } from "node:worker_threads"
import { replaceBuiltinExport } from "./replaceBuiltin.js"

/** Puts `replace(original)` in place of `Worker`; returns what puts the original back. */
export const replaceWorker = (replace: (original: typeof Worker) => typeof Worker): () => void =>
  replaceBuiltinExport("node:worker_threads", "Worker", replace)
