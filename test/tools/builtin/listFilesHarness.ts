/**
 * What `listFiles.test.ts` and `listFiles.slow.test.ts` share:
 * a `list_files` call in a workspace of its own.
 */
import { Effect } from "effect"
import { ToolSystem, Workspace } from "../../../src/index.js"
import { listFiles } from "../../../src/tools/builtin/listFiles.js"

/** `list_files` with `args`, in a tool system with that tool only and the workspace `root`. */
export const list = (args: Record<string, unknown>, root: string) =>
  Effect.gen(function*() {
    const ts = yield* ToolSystem
    return yield* ts.execute("list_files", args)
  }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [listFiles], workspace: Workspace.layerFixed(root) })))
