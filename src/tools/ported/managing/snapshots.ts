/**
 * The snapshot store shared by `snapshot_file`, `restore_snapshot` and `list_snapshots`: a real
 * `.snapshots` directory at the workspace root (never a symbolic link: it is opened bound to
 * that path), holding for each snapshot `<id>.snap` (the bytes) and `<id>.json` (where they
 * came from), the metadata written last so that a listed snapshot is complete.
 *
 * An id is checked against `^[A-Za-z0-9_-]{1,64}$` before any path is made from it, so no id
 * can name anything outside the store. The metadata is data in the workspace that anyone with
 * a write tool can change: its `source` is resolved again through the `Workspace` (an escape
 * is the `PathTraversalError` defect), and it never names the snapshot's own files.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import { openDirectory, openFile, statEntry } from "../../shared/safeFs.js"
import * as Node from "../../shared/safeFsNode.js"
import type { BinaryFile, FileTooLarge, SafeFsError } from "../../shared/safeFsError.js"
import { readText } from "../../shared/safeFsRead.js"

/** The store's directory, under the workspace root. */
export const SNAPSHOT_DIR = ".snapshots"

/** Largest file a snapshot holds. */
export const SNAPSHOT_MAX_BYTES = 64 * 1024 * 1024

/** Largest metadata file read. */
const META_MAX_BYTES = 64 * 1024

/** The form of an id: letters, digits, `_` and `-`, at most 64. */
export const SNAPSHOT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/

/** A snapshot id argument. */
export const SnapshotId = Schema.String.check(Schema.isPattern(SNAPSHOT_ID_PATTERN)).annotate({
  description: "A snapshot id, as snapshot_file returned it or list_snapshots lists it (letters, digits, _ and -)"
})

/** The metadata of one snapshot (`<id>.json`). */
export const SnapshotMeta = Schema.Struct({
  version: Schema.Literal(1),
  id: SnapshotId,
  /** The file it was taken of, relative to the workspace root. */
  source: Schema.String,
  /** When it was taken (ISO 8601). */
  created_at: Schema.String,
  size: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  /** The file's permission bits then. */
  mode: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 0o777 }))
})
export type SnapshotMeta = typeof SnapshotMeta.Type

/** The store's directory in a workspace (its real root). */
export const snapshotDirOf = (root: string): string => NodePath.join(root, SNAPSHOT_DIR)

/** The path of a snapshot's bytes; `id` must match `SNAPSHOT_ID_PATTERN`. */
export const contentPathOf = (root: string, id: string): string => NodePath.join(snapshotDirOf(root), `${id}.snap`)

/** The path of a snapshot's metadata; `id` must match `SNAPSHOT_ID_PATTERN`. */
export const metaPathOf = (root: string, id: string): string => NodePath.join(snapshotDirOf(root), `${id}.json`)

/**
 * A new id: the UTC time (so ids sort by age) and 8 random hex digits, e.g.
 * `20250102-153012-1a2b3c4d`. The digits come from the fiber's `Random` (as the time from its
 * `Clock`), so a test can make two ids the same; an id already taken is never overwritten.
 * (Effect 4's `nextIntBetween` includes its upper bound unless `halfOpen`: 8 digits at most.)
 */
export const newSnapshotId = (millis: number): Effect.Effect<string> =>
  Effect.map(Random.nextIntBetween(0, 0x1_0000_0000, { halfOpen: true }), (n) => {
    const iso = new Date(millis).toISOString()
    const stamp = `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}`
    return `${stamp}-${n.toString(16).padStart(8, "0")}`
  })

/** The metadata file's bytes. */
export const encodeMeta = (meta: SnapshotMeta): Uint8Array => Buffer.from(`${JSON.stringify(meta, null, 2)}\n`, "utf8")

/** A metadata file that is not what `snapshot_file` writes (or names another id). */
export class DamagedSnapshot extends Schema.TaggedError<DamagedSnapshot>()("DamagedSnapshot", {
  id: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `snapshot ${this.id} is damaged: ${this.reason}`
  }
}

const decodeMeta = Schema.decodeUnknownResult(Schema.fromJsonString(SnapshotMeta))

/** Reads and checks the metadata of snapshot `id` (which must match `SNAPSHOT_ID_PATTERN`). */
export const readMeta = (
  root: string,
  id: string
): Effect.Effect<SnapshotMeta, SafeFsError | FileTooLarge | BinaryFile | DamagedSnapshot> =>
  Effect.scoped(Effect.gen(function*() {
    const file = yield* openFile(metaPathOf(root, id))
    const text = yield* readText(file, META_MAX_BYTES)
    const meta = decodeMeta(text)
    if (Result.isFailure(meta)) return yield* new DamagedSnapshot({ id, reason: "its metadata is not valid" })
    if (meta.success.id !== id) {
      return yield* new DamagedSnapshot({ id, reason: `its metadata names snapshot ${meta.success.id}` })
    }
    return meta.success
  }))

/**
 * Why the store cannot be used, if it cannot: `.snapshots` is there but is not a real directory
 * (a symbolic link, a file). `None` when it is a directory or missing.
 */
export const storeProblem = (root: string): Effect.Effect<Option.Option<string>, SafeFsError> =>
  Effect.scoped(Effect.gen(function*() {
    const found = yield* statEntry(yield* openDirectory(root), SNAPSHOT_DIR).pipe(
      Effect.map(Option.some),
      Effect.catchIf((error) => error.reason === "NotFound", () => Effect.succeed(Option.none()))
    )
    if (Option.isNone(found) || found.value.isDirectory()) return Option.none()
    return Option.some(
      `${SNAPSHOT_DIR} at the workspace root is a ${Node.kindOf(found.value)}, not a directory; snapshots are kept ` +
        `only in a real ${SNAPSHOT_DIR} directory there (move it away to use snapshots)`
    )
  }))
