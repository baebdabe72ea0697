/**
 * `file_info`: what a path is (file, directory, FIFO, ...), its size, modification time and
 * permissions, and for a text file its line count. Everything is read through a checked
 * descriptor (`openFile` / `openDirectory`); a FIFO, socket or device is described without
 * being opened. Lines are counted only in files up to `FILE_INFO_COUNT_BYTES`; a larger file
 * is judged text or binary by its first block, and `count_lines` counts it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { listDirectory, openDirectory, openFile, statEntry } from "../../shared/safeFs.js"
import type { SafeFsError } from "../../shared/safeFsError.js"
import * as Node from "../../shared/safeFsNode.js"
import { countNewlines, linesOf, NEWLINE, readChunks } from "./chunks.js"
import { fileFailure, plural, TAGS } from "./common.js"

/** Largest file whose lines `file_info` counts. */
export const FILE_INFO_COUNT_BYTES = 16 * 1024 * 1024

const TOOL = "file_info"

const RWX = ["---", "--x", "-w-", "-wx", "r--", "r-x", "rw-", "rwx"]

/** `644 (rw-r--r--)`. */
const permissions = (mode: bigint | number): string => {
  const bits = Number(mode) & 0o777
  return `${bits.toString(8).padStart(3, "0")} (${[6, 3, 0].map((shift) => RWX[(bits >> shift) & 7]).join("")})`
}

/** The common lines: type, size, time, permissions. */
const header = (shown: string, type: string, stats: NodeFs.BigIntStats, size = true) =>
  [
    `path: ${shown}`,
    `type: ${type}`,
    ...(size ? [`size: ${stats.size} bytes`] : []),
    `modified: ${stats.mtime.toISOString()}`,
    `permissions: ${permissions(stats.mode)}`
  ]

/** A regular file: its stats and what its content is. */
const describeFile = (path: string, shown: string) =>
  Effect.scoped(Effect.gen(function*() {
    const file = yield* openFile(path)
    const stats = yield* Node.fstat(file.fd, path)
    const lines = header(shown, "file", stats)
    if (file.size > FILE_INFO_COUNT_BYTES) {
      // judged by the first block only; not counted
      const text = yield* Effect.result(readChunks(file, 1, () => false))
      return [
        ...lines,
        Result.isSuccess(text)
          ? `content: text (lines not counted above ${FILE_INFO_COUNT_BYTES} bytes; count_lines counts them)`
          : "content: binary"
      ].join("\n")
    }
    let newlines = 0
    let last = NEWLINE
    const read = yield* Effect.result(readChunks(file, FILE_INFO_COUNT_BYTES, (bytes) => {
      newlines += countNewlines(bytes)
      last = bytes[bytes.length - 1] ?? last
      return true
    }))
    if (Result.isFailure(read)) {
      if (read.failure._tag === "BinaryFile") return [...lines, "content: binary"].join("\n")
      return yield* read.failure
    }
    const count = linesOf(newlines, last)
    return [...lines, `content: text, ${plural(count, "line", "lines")}`].join("\n")
  }))

/** A directory: its stats and how many entries it has. */
const describeDirectory = (path: string, shown: string) =>
  Effect.scoped(Effect.gen(function*() {
    const dir = yield* openDirectory(path)
    const stats = yield* Node.fstat(dir.fd, path)
    const entries = yield* listDirectory(dir)
    const dirs = entries.filter((entry) => entry.kind === "directory").length
    return [
      ...header(shown, "directory", stats, false),
      `entries: ${entries.length} (${plural(dirs, "directory", "directories")}, ${
        plural(entries.length - dirs, "other entry", "other entries")
      })`
    ].join("\n")
  }))

/** A FIFO, socket or device: described through its directory, never opened. */
const describeOther = (path: string, shown: string, kind: string) =>
  Effect.scoped(Effect.gen(function*() {
    const dir = yield* openDirectory(NodePath.dirname(path))
    const stats = yield* statEntry(dir, NodePath.basename(path))
    return [...header(shown, kind, stats, false), "content: not a regular file; not opened"].join("\n")
  }))

export const fileInfo = make(TOOL, {
  description: "Describe a file or directory: its type, size, modification time and permissions, and for a text " +
    `file its number of lines (counted up to ${FILE_INFO_COUNT_BYTES / 1024 / 1024} MiB), or whether it is binary.`,
  parameters: Schema.Struct({
    filepath: WorkspacePath.annotate({ description: "Path of the file or directory, relative to the workspace root" })
  }),
  readOnly: true,
  tags: TAGS,
  timeout: "30 seconds",
  handler: ({ filepath }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const shown = yield* workspace.display(filepath)
      return yield* describeFile(filepath, shown).pipe(
        Effect.catchIf(
          (error): error is SafeFsError => error._tag === "SafeFsError" && error.reason === "IsDirectory",
          () => describeDirectory(filepath, shown)
        ),
        Effect.catchIf(
          (error): error is SafeFsError => error._tag === "SafeFsError" && error.reason === "NotRegularFile",
          (error) => describeOther(filepath, shown, error.kind ?? "special file")
        )
      )
    }).pipe(Effect.mapError(fileFailure(TOOL)))
})
