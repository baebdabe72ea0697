/**
 * The file-reading tools (all read-only): `read_lines`, `file_info`, `search_files`,
 * `find_files`, `directory_tree`, `diff_files`, `count_lines`.
 *
 * @since 0.1.0
 */
import { countLines } from "./countLines.js"
import { diffFiles } from "./diffFiles.js"
import { directoryTree } from "./directoryTree.js"
import { fileInfo } from "./fileInfo.js"
import { findFiles } from "./findFiles.js"
import { readLines } from "./readLines.js"
import { searchFiles } from "./searchFiles.js"

export { countLines, diffFiles, directoryTree, fileInfo, findFiles, readLines, searchFiles }

/** Every reading tool, in catalog order. */
export const readingTools = [readLines, fileInfo, searchFiles, findFiles, directoryTree, diffFiles, countLines] as const
