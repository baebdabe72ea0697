/**
 * Where the sandbox worker script is. The compiled package has `worker.js` next to this module;
 * under vitest or tsx only the TypeScript sources exist, and the worker starts through
 * `tsWorker.mjs`, which runs `worker.ts` with tsx (a devDependency).
 *
 * @since 0.1.0
 */
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

/**
 * The worker script: `worker.js` when it exists (the compiled package), else the tsx entry for
 * `worker.ts`. Which one is chosen is seen only where the package is compiled:
 * test/tools/builtin/workerHosts.slow.test.ts runs the sandbox from a compiled copy in a child process.
 */
export const workerEntry = (): URL => {
  const compiled = new URL("./worker.js", import.meta.url)
  return existsSync(fileURLToPath(compiled)) ? compiled : new URL("./tsWorker.mjs", import.meta.url)
}
