/**
 * The mode gate. Fails closed on any ambiguity: a scoped-write tool without path arguments,
 * a mode without scoped dirs, or a path outside every scoped dir.
 *
 * A scoped dir is the real directory of that name directly under the workspace's real root,
 * compared with the call's resolved (real) paths: a `plans` that is a symlink to another
 * folder never widens the scope, since what it points to is not under `root/plans`. The write
 * tools then bind their check to what they actually open (see `tools/shared/safeFs.ts`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as NodePath from "node:path"
import { ModeBlocked } from "../domain/errors.js"
import type { ModeGateService } from "../services/ModeGate.js"
import { Workspace } from "../services/Workspace.js"
import { isInside } from "./Workspace.js"

export const makeModeGate: Effect.Effect<ModeGateService, never, Workspace> = Effect.map(Workspace, (workspace) => ({
  check: (tool, call, mode) => {
    if (!mode.readOnly || tool.spec.readOnly) return Effect.void
    const block = (reason: string) => Effect.fail(new ModeBlocked({ tool: tool.name, mode: mode.name, reason }))
    if (!tool.scopedWrite) return block("the tool has side effects and the mode is read-only")
    if (mode.scopedWriteDirs.length === 0) return block("the mode allows no writes")
    if (call.paths.length === 0) return block("a scoped write needs a path argument")
    return Effect.flatMap(workspace.root, (root) => {
      const dirs = mode.scopedWriteDirs.map((dir) => NodePath.resolve(root, dir))
      for (const path of call.paths) {
        if (!dirs.some((dir) => isInside(dir, path) && path !== dir)) {
          const allowed = mode.scopedWriteDirs.map((d) => NodePath.join(d, "")).join(", ")
          const shown = NodePath.relative(root, path) || "."
          return block(`"${shown}" is outside the writable directories (${allowed}) of the workspace`)
        }
      }
      return Effect.void
    })
  }
}))
