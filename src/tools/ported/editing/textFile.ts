/**
 * The read-edit-write cycle every text editing tool shares: under the lock of the file's
 * resolved path (`shared/pathLock.ts`), read the whole file exactly as stored (opened bound to
 * the resolved path, anything that is not UTF-8 text refused), compute the new text, and write
 * it atomically with `writeFileAtomic` (temp file + rename, the mode kept). A byte order mark
 * stays where it is, outside the text the edit sees. A failed edit writes nothing, and an edit
 * that changes nothing leaves the file as it was.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { ToolError } from "../../../domain/errors.js"
import type { ResolvedPath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { writeFileAtomic } from "../../shared/atomicWrite.js"
import { withPathLock } from "../../shared/pathLock.js"
import { openFile } from "../../shared/safeFs.js"
import { readBytes } from "../../shared/safeFsBytes.js"
import { BinaryFile, type FileTooLarge, type SafeFsError } from "../../shared/safeFsError.js"
import { NUL_WINDOW_BYTES } from "../../shared/text.js"

/** Largest file the editing tools change. */
export const EDIT_MAX_BYTES = 10 * 1024 * 1024

/** What an edit computed: the new text and the sentence the tool answers with. */
export interface Edit {
  readonly text: string
  readonly message: string
}

/** The errors of reading or writing a file, as a tool's message (the file is never half-edited). */
export const toToolError = (tool: string) => (error: SafeFsError | FileTooLarge | BinaryFile): ToolError =>
  new ToolError({
    tool,
    message: error._tag === "FileTooLarge"
      ? `"${error.path}" is ${error.size} bytes; ${tool} edits files of at most ${EDIT_MAX_BYTES} bytes ` +
        "(write_file replaces a whole file)"
      : error._tag === "BinaryFile"
      ? `${error.message}; it was not changed`
      : error.message,
    cause: error
  })

const exact = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

const BOM = "\uFEFF"

/**
 * The whole text of the file at `path`, exactly as stored: a BOM is kept, and a file with a NUL
 * byte in its first block or with bytes that are not UTF-8 anywhere is `BinaryFile`, so writing
 * the text back changes only what the edit changed.
 */
export const readExactText = (path: string): Effect.Effect<string, SafeFsError | FileTooLarge | BinaryFile> =>
  Effect.scoped(Effect.gen(function*() {
    const file = yield* openFile(path)
    const bytes = yield* readBytes(file, EDIT_MAX_BYTES)
    const binary = new BinaryFile({ path, size: bytes.length })
    if (bytes.subarray(0, NUL_WINDOW_BYTES).includes(0)) return yield* binary
    return yield* Effect.try({ try: () => exact.decode(bytes), catch: () => binary })
  }))

/**
 * Edits the text file at `path` under its lock: `edit` gets the current text (a missing file is
 * the error; append_to_file creates one itself first) and the path as the agent sees it, and
 * returns the new text, or fails with a `ToolError` and nothing is written.
 */
export const editTextFile = (
  tool: string,
  path: ResolvedPath,
  edit: (current: string, shown: string) => Effect.Effect<Edit, ToolError>
): Effect.Effect<string, ToolError, Workspace> =>
  withPathLock(path)(Effect.gen(function*() {
    const workspace = yield* Workspace
    const root = yield* workspace.root
    const shown = yield* workspace.display(path)
    const current = yield* readExactText(path).pipe(Effect.mapError(toToolError(tool)))
    // a byte order mark is no part of the first line: edits see the text after it, and it stays
    const bom = current.startsWith(BOM) ? BOM : ""
    const result = yield* edit(current.slice(bom.length), shown)
    const text = bom + result.text
    if (text !== current) {
      yield* writeFileAtomic(root, path, text).pipe(Effect.mapError(toToolError(tool)))
    }
    return result.message
  }))

/** `"1 line"`, `"3 lines"`. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`
