/**
 * Atomic file writes: the content goes to a temp file beside the target, then a rename puts
 * it in place, so a failed write never leaves a half-written file.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import type { PlatformError } from "@effect/platform/Error"
import { Effect } from "effect"

/** Writes `content` to `path` atomically, creating parent directories. */
export const writeFileAtomic = (
  path: string,
  content: string | Uint8Array
): Effect.Effect<void, PlatformError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const p = yield* Path.Path
    const dir = p.dirname(path)
    yield* fs.makeDirectory(dir, { recursive: true })
    const temp = p.join(dir, `.${p.basename(path)}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.tmp`)
    const write = typeof content === "string" ? fs.writeFileString(temp, content) : fs.writeFile(temp, content)
    yield* write.pipe(
      Effect.zipRight(fs.rename(temp, path)),
      Effect.onError(() => Effect.ignore(fs.remove(temp)))
    )
  })
