/**
 * `copy_file`: copies a file inside the workspace, any content (binary too), up to
 * `COPY_MAX_BYTES`. Both paths are `WorkspacePath`s, resolved and mode-checked by the executor.
 * The source is read through a descriptor bound to its resolved path; the copy is put in place
 * with `placeBytes` (`shared/safeFsPlace.ts`): atomically, never replacing a file that appears
 * meanwhile unless `overwrite`, a new copy with the source's permission bits.
 *
 * Two copies have the effect of a tool that needs confirmation (`asksConfirmation`): replacing
 * an existing file (what `delete_file` and `write_file` confirm), and copying an executable
 * file (a new program in the workspace). The call asks as it is about to act: the copy is first
 * put in place without replacing anything, and only a file found there (by that very placement)
 * makes it ask before replacing; the source's mode is read from the descriptor its bytes come from.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { confirmEffect } from "../../../services/CallConfirmation.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { withPathLocks } from "../../shared/pathLock.js"
import { openFile } from "../../shared/safeFs.js"
import { readBytes } from "../../shared/safeFsBytes.js"
import { placeBytes } from "../../shared/safeFsPlace.js"

/** Largest file `copy_file` copies (it is held in memory once). */
export const COPY_MAX_BYTES = 64 * 1024 * 1024

const TOOL = "copy_file"

export const copyFile = make(TOOL, {
  description: "Copy a file (text or binary) inside the workspace, creating the destination's parent directories. " +
    "destination is the full path of the copy, not a folder to copy into. An existing file at the destination is " +
    `an error unless overwrite is true. Files up to ${COPY_MAX_BYTES / 1024 / 1024} MiB; directories are not copied. ` +
    "Replacing an existing file or copying an executable file needs confirmation: the call answers " +
    "CONFIRMATION_REQUIRED unless made with confirm: true.",
  parameters: Schema.Struct({
    source: WorkspacePath.annotate({ description: "Path of the file to copy, relative to the workspace root" }),
    destination: WorkspacePath.annotate({ description: "Path of the copy, relative to the workspace root" }),
    overwrite: Schema.Boolean.annotate({ description: "Replace a file already at the destination" }).pipe(
      Schema.withDecodingDefaultType(Effect.succeed(false))
    )
  }),
  scopedWrite: true,
  asksConfirmation: "when it would replace an existing file, or copy an executable file",
  tags: ["files", "ported"],
  timeout: "60 seconds",
  handler: ({ destination, overwrite, source }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const root = yield* workspace.root
      const from = yield* workspace.display(source)
      const to = yield* workspace.display(destination)
      const fail = (message: string) => new ToolError({ tool: TOOL, message })
      if (source === destination) {
        return yield* fail(`${from} is both the source and the destination; nothing was copied`)
      }
      const copied = yield* withPathLocks([source, destination])(Effect.scoped(Effect.gen(function*() {
        const file = yield* openFile(source)
        const bytes = yield* readBytes(file, COPY_MAX_BYTES)
        const mode = file.mode & 0o777
        if ((mode & 0o111) !== 0) yield* confirmEffect(TOOL, `would copy an executable file to ${to}`)
        // not replacing anything first: a file found there by the placement itself asks before it is replaced
        return yield* placeBytes(root, destination, bytes, { overwrite: false, mode }).pipe(
          Effect.catchTag("DestinationExists", (exists) =>
            overwrite
              ? Effect.andThen(
                confirmEffect(TOOL, `would overwrite ${to}`),
                placeBytes(root, destination, bytes, { overwrite: true, mode })
              )
              : Effect.fail(exists))
        )
      }))).pipe(
        Effect.mapError((error) => {
          if (error._tag === "ConfirmationRequired") return error
          const message = error._tag === "SafeFsError" && error.reason === "IsDirectory" && error.path === source
            ? `${from} is a directory; copy_file copies files only`
            : error._tag === "SafeFsError" && error.reason === "IsDirectory" && error.path === destination
            ? `${to} is an existing directory; name the full path of the copy, e.g. "${to}/${from.split("/").pop()}"`
            : error._tag === "FileTooLarge"
            ? `${from} is ${error.size} bytes; copy_file copies files of at most ${COPY_MAX_BYTES} bytes`
            : error.message
          return new ToolError({ tool: TOOL, message: `${message}; nothing was copied`, cause: error })
        })
      )
      return `Copied ${from} to ${to} (${copied.bytes} bytes${copied.replaced ? ", replaced an existing file" : ""})`
    })
})
