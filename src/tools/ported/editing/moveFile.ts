/**
 * `move_file`: moves (renames) a file or a directory inside the workspace. Both paths are
 * `WorkspacePath`s, so the executor resolves both and the mode gate checks both (in plan mode
 * the call passes only when both lie under `plans/`). The move is bound to the checked
 * directories (`shared/safeFsMove.ts`) and holds the locks of both paths.
 *
 * Two moves have the effect of a tool that needs confirmation (`asksConfirmation`): replacing
 * an existing file (what `delete_file` confirms) and moving an executable file. The move is
 * first made without replacing anything, and only a file found there by that very move makes
 * it ask before replacing. The executable bit is read from the source's entry under the
 * locks, just before the move; a directory is moved without looking inside it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as NodePath from "node:path"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { confirmEffect } from "../../../services/CallConfirmation.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { withPathLocks } from "../../shared/pathLock.js"
import { openDirectory } from "../../shared/safeFs.js"
import { entryOf, lstatEntry } from "../../shared/safeFsEntry.js"
import { moveEntry } from "../../shared/safeFsMove.js"

/** Whether `path` is a regular file with an executable bit (looked at through its checked directory). */
const isExecutableFile = (path: string) =>
  Effect.scoped(Effect.gen(function*() {
    const dir = yield* openDirectory(NodePath.dirname(path))
    const found = yield* lstatEntry(entryOf(dir, NodePath.basename(path)))
    return Option.isSome(found) && found.value.isFile() && (Number(found.value.mode) & 0o111) !== 0
  }))

const TOOL = "move_file"

export const moveFile = make(TOOL, {
  description: "Move or rename a file (or a directory) inside the workspace, creating the destination's parent " +
    "directories. destination is the full new path, not a folder to move into. An existing file at the destination " +
    "is an error unless overwrite is true; an existing directory there is never replaced. Replacing an existing " +
    "file or moving an executable file needs confirmation: the call answers CONFIRMATION_REQUIRED unless made " +
    "with confirm: true.",
  parameters: Schema.Struct({
    source: WorkspacePath.annotate({
      description: "Path of the file or directory to move, relative to the workspace root"
    }),
    destination: WorkspacePath.annotate({ description: "Its new path, relative to the workspace root" }),
    overwrite: Schema.Boolean.annotate({ description: "Replace a file already at the destination" }).pipe(
      Schema.withDecodingDefaultType(Effect.succeed(false))
    )
  }),
  scopedWrite: true,
  asksConfirmation: "when it would replace an existing file, or move an executable file",
  tags: ["files", "ported"],
  timeout: "30 seconds",
  handler: ({ destination, overwrite, source }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const root = yield* workspace.root
      const from = yield* workspace.display(source)
      const to = yield* workspace.display(destination)
      const move = Effect.gen(function*() {
        if (yield* isExecutableFile(source)) yield* confirmEffect(TOOL, `would move an executable file to ${to}`)
        // not replacing anything first: a file found there by the move itself asks before it is replaced
        return yield* moveEntry(root, source, destination, { overwrite: false }).pipe(
          Effect.catchTag("DestinationExists", (exists) =>
            overwrite
              ? Effect.andThen(
                confirmEffect(TOOL, `would overwrite ${to}`),
                moveEntry(root, source, destination, { overwrite: true })
              )
              : Effect.fail(exists))
        )
      })
      const moved = yield* move.pipe(
        withPathLocks([source, destination]),
        Effect.mapError((error) =>
          error._tag === "ConfirmationRequired" ? error : new ToolError({
            tool: TOOL,
            message: error._tag === "SafeFsError" && error.code === "EXDEV"
              ? `${from} and ${to} are on different file systems; nothing was moved (copy_file, then delete_file)`
              : `${error.message}; nothing was moved`,
            cause: error
          })
        )
      )
      return `Moved ${moved.kind === "directory" ? "directory " : ""}${from} to ${to}` +
        (moved.replaced ? " (replaced an existing file)" : "")
    })
})
