/**
 * What `PdfWorkers.test.ts` and `PdfWorkers.slow.test.ts` share: the memory limit their workers are
 * borrowed with, and one use of a worker.
 */
import { Effect } from "effect"
import type { PdfWorkersService } from "../../src/services/PdfWorkers.js"

export const LIMIT_MB = 256

/** Borrows a worker, asks it something, gives it back (which parks it with a fresh idle timer). */
export const useOnce = (pool: PdfWorkersService) =>
  Effect.scoped(Effect.flatMap(pool.borrow(LIMIT_MB), (worker) => pool.request(worker, { _tag: "Close" })))
