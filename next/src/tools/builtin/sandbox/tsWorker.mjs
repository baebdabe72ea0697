// Development entry of the sandbox worker, used when only worker.ts exists (vitest, tsx):
// it runs worker.ts through tsx. (Node 20 does not apply the hooks of `--import tsx` to a
// worker's entry module, so `execArgv: ["--import", "tsx"]` is not enough.) The compiled
// package starts worker.js directly and never loads this file.
import { tsImport } from "tsx/esm/api"

await tsImport("./worker.ts", import.meta.url)
