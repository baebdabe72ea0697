/**
 * Where the sandbox worker script is. The compiled package has `worker.js` next to this module;
 * under vitest or tsx only the TypeScript sources exist, and the worker starts through
 * `tsWorker.mjs`, which runs `worker.ts` with tsx (a devDependency).
 *
 * @since 0.1.0
 */
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** The worker's entry module, and whether it runs from compiled JavaScript. */
export interface WorkerEntry {
  readonly url: URL
  readonly compiled: boolean
}

/** Finds the worker script: `worker.js` when it exists, else the tsx entry for `worker.ts`. */
export const workerEntry = (): WorkerEntry => {
  const compiled = new URL("./worker.js", import.meta.url)
  if (existsSync(fileURLToPath(compiled))) return { url: compiled, compiled: true }
  return { url: new URL("./tsWorker.mjs", import.meta.url), compiled: false }
}
