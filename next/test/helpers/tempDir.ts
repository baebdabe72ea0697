import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** A real temp directory (its real path), removed when the scope closes. */
export const tempDir = (prefix = "ets-"): Effect.Effect<string, never, import("effect").Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** A temp directory for a whole test file (created now, removed by the caller's afterAll). */
export const makeTempDirSync = (prefix = "ets-"): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
