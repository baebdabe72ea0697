/**
 * The file editing tools (all scoped writes): each change is atomic, keeps the file's line
 * endings, final newline and mode, leaves the file untouched when it fails, and is serialized
 * with every other edit of the same file.
 *
 * @since 0.1.0
 */
import { appendToFile } from "./appendToFile.js"
import { applyDiff } from "./applyDiff.js"
import { copyFile } from "./copyFile.js"
import { editFileLine } from "./editFileLine.js"
import { insertLines } from "./insertLines.js"
import { moveFile } from "./moveFile.js"
import { removeLineRange } from "./removeLineRange.js"
import { replaceInFile } from "./replaceInFile.js"

export { appendToFile, applyDiff, copyFile, editFileLine, insertLines, moveFile, removeLineRange, replaceInFile }

/** The editing tools, in catalog order. */
export const editingTools = [
  appendToFile,
  insertLines,
  replaceInFile,
  moveFile,
  copyFile,
  applyDiff,
  editFileLine,
  removeLineRange
] as const
