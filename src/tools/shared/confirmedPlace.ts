/**
 * Writes that replace a file only in a confirmed call (see `CallConfirmation`), for the tools
 * whose purpose is to create a file but which may land on an existing one (`download_file`,
 * `generate_image`): the new file is put in place without replacing anything, and only a file
 * found there by that very placement makes the call ask before it is replaced. So a file that
 * appears between any earlier look and the write is never clobbered unconfirmed.
 *
 * @since 0.6.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import * as NodePath from "node:path"
import type { ConfirmationRequired } from "../../domain/errors.js"
import { confirmEffect } from "../../services/CallConfirmation.js"
import { tempNameOf, writeFileAtomic, type WriteOutcome } from "./atomicWrite.js"
import { type StreamTooLarge, writeStreamAtomic } from "./atomicStreamWrite.js"
import { changed, openDirectory, openFile } from "./safeFs.js"
import { entryOf, lstatEntry } from "./safeFsEntry.js"
import { SafeFsError } from "./safeFsError.js"
import { deleteFile, moveEntry } from "./safeFsMove.js"
import * as Node from "./safeFsNode.js"
import { placeBytes } from "./safeFsPlace.js"

/** Gives `temp` the permission bits of the file at `path` it is about to replace, as `writeFileAtomic` does. */
const keepModeOf = (path: string, temp: string): Effect.Effect<void, SafeFsError> =>
  Effect.scoped(Effect.gen(function*() {
    const replaced = yield* openFile(path)
    const own = yield* openFile(temp)
    yield* Node.fchmod(own.fd, temp, replaced.mode & 0o777)
  }))

/**
 * Whether a file (anything but a directory, which no write replaces) is at `path`, looked at
 * through its checked directory (none when that is missing).
 */
export const entryExists = (path: string): Effect.Effect<boolean, SafeFsError> =>
  Effect.scoped(Effect.gen(function*() {
    const dir = yield* openDirectory(NodePath.dirname(path))
    const found = yield* lstatEntry(entryOf(dir, NodePath.basename(path)))
    return Option.isSome(found) && !found.value.isDirectory()
  })).pipe(Effect.catchIf((error) => error.reason === "NotFound", () => Effect.succeed(false)))

/** The reason a call gives when it would replace `shown`. */
const overwriting = (shown: string) => `would overwrite ${shown}`

/**
 * Puts `bytes` at `path` (resolved, inside `root`); an existing file there is replaced only once
 * the running call of `tool` is confirmed (else `ConfirmationRequired`, nothing changed).
 */
export const placeBytesConfirmed = (
  tool: string,
  root: string,
  path: string,
  shown: string,
  bytes: Uint8Array
): Effect.Effect<WriteOutcome, SafeFsError | ConfirmationRequired> =>
  placeBytes(root, path, bytes, { overwrite: false }).pipe(
    Effect.catchTag("DestinationExists", () =>
      Effect.andThen(confirmEffect(tool, overwriting(shown)), writeFileAtomic(root, path, bytes)))
  )

/**
 * `writeStreamAtomic` that replaces an existing file only in a confirmed call of `tool`: the
 * stream goes to a hidden file beside `path`, which is then moved there without replacing
 * anything (`moveEntry`); a file found there asks, and is replaced only once confirmed. The
 * hidden file never outlives the call.
 */
export const writeStreamConfirmed = <E>(
  tool: string,
  root: string,
  path: string,
  shown: string,
  content: Stream.Stream<Uint8Array, E>,
  maxBytes: number
): Effect.Effect<WriteOutcome, E | SafeFsError | StreamTooLarge | ConfirmationRequired> => {
  const temp = NodePath.join(NodePath.dirname(path), tempNameOf(NodePath.basename(path)))
  // not `acquireUseRelease`: the download must stay interruptible (a timeout), and
  // `writeStreamAtomic` removes its own partial file when it is
  return Effect.flatMap(writeStreamAtomic(root, temp, content, maxBytes), (written) =>
      moveEntry(root, temp, path, { overwrite: false }).pipe(
        Effect.as(written),
        Effect.catchTag("DestinationExists", () =>
          Effect.andThen(
            Effect.andThen(confirmEffect(tool, overwriting(shown)), keepModeOf(path, temp)),
            moveEntry(root, temp, path, { overwrite: true }).pipe(
              Effect.as({ ...written, replaced: true }),
              // a replacing move does not refuse an occupied destination
              Effect.catchTag("DestinationExists", () => Effect.fail(changed(path, "it was being written")))
            )
          ))
      )).pipe(
      // as `writeStreamAtomic` says it (the move's message names a destination folder)
      Effect.mapError((error) =>
        error instanceof SafeFsError && error.reason === "IsDirectory" && error.path === path
          ? new SafeFsError({ reason: "IsDirectory", path, message: `"${path}" is a directory` })
          : error
      ),
      // moved into place, the hidden name is gone (NotFound); otherwise it is removed
      Effect.ensuring(
        deleteFile(temp).pipe(
          Effect.catchIf((error) => error.reason === "NotFound", () => Effect.void),
          Effect.catch((error) => Effect.logWarning(`could not remove the temp file "${temp}"`, error))
        )
      )
    )
}
