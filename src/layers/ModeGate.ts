/**
 * The mode gate. Fails closed on any ambiguity: a scoped-write tool without path arguments,
 * a mode without scoped dirs, or a path that resolves outside every scoped dir.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
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
    return Effect.gen(function*() {
      const root = yield* workspace.root
      const dirs = yield* Effect.forEach(mode.scopedWriteDirs, (dir) => workspace.resolve(dir))
      for (const path of call.paths) {
        const resolved = yield* workspace.resolve(path)
        if (!dirs.some((dir) => isInside(dir, resolved) && resolved !== dir)) {
          const allowed = mode.scopedWriteDirs.map((d) => NodePath.join(d, "")).join(", ")
          return yield* block(`"${path}" is outside the writable directories (${allowed}) of ${root}`)
        }
      }
    })
  }
}))

export const makeModeGateOpen: ModeGateService = { check: () => Effect.void }
