/**
 * `hash_file`: a digest of a workspace file of any size, read in chunks through the bound
 * descriptor (`openFile`): no cap on the size, constant memory, and an interruption (the
 * timeout) takes effect between two reads. A call with a progress listener hears the bytes
 * hashed of the file's size (`reportProgress`, one per chunk read; the channel throttles).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Crypto from "node:crypto"
import { ToolError } from "../../../domain/errors.js"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { reportProgress } from "../../../services/CallProgress.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { openFile } from "../../shared/safeFs.js"
import { read } from "../../shared/safeFsNode.js"
import { bufferFor } from "../../shared/safeFsRead.js"

const TOOL = "hash_file"

/** The algorithms offered (Node's names). */
export const HASH_ALGORITHMS = ["md5", "sha1", "sha256", "sha512"] as const

/** Bytes read at a time. */

/** The digest (hex) and the number of bytes hashed. */
const digest = (path: string, algorithm: string) =>
  Effect.scoped(Effect.gen(function*() {
    const file = yield* openFile(path)
    const hash = yield* Effect.try({
      try: () => Crypto.createHash(algorithm),
      catch: (cause) => new ToolError({ tool: TOOL, message: `${algorithm} is not available in this Node build`, cause })
    })
    // at least the first block: a file that was small when opened and grows meanwhile is not read in small steps
    const buffer = bufferFor(file)
    let position = 0
    for (;;) {
      const n = yield* read(file.fd, file.path, buffer, buffer.length, position)
      if (n === 0) break
      hash.update(buffer.subarray(0, n))
      position += n
      // the size when opened: a file that grew meanwhile reports no total past it
      yield* reportProgress({ progress: position, total: file.size })
    }
    return { hex: hash.digest("hex"), bytes: position }
  }))

export const hashFile = make(TOOL, {
  description: "Compute the checksum of a workspace file (any size, text or binary): md5, sha1, sha256 (default) or sha512, " +
    "as lowercase hex. The answer is \"<algorithm> <hex>  <path> (<bytes> bytes)\".",
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({ description: "Path of the file, relative to the workspace root" }),
    algorithm: Schema.Literals(HASH_ALGORITHMS).annotate({ description: "The hash algorithm" })
      .pipe(Schema.withDecodingDefaultType(Effect.succeed("sha256" as const)))
  }),
  readOnly: true,
  tags: ["data", "ported"],
  timeout: "60 seconds",
  handler: ({ algorithm, filepath }) =>
    Effect.gen(function*() {
      const { bytes, hex } = yield* digest(filepath, algorithm).pipe(
        Effect.mapError((error) =>
          error._tag === "ToolError" ? error : new ToolError({ tool: TOOL, message: error.message, cause: error })
        )
      )
      const shown = yield* Effect.flatMap(Workspace, (ws) => ws.display(filepath))
      return `${algorithm} ${hex}  ${shown} (${bytes} bytes)`
    })
})
