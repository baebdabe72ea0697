/**
 * The builtin tools.
 *
 * @since 0.1.0
 */
import { executeJavascript } from "./executeJavascript.js"
import { listFiles } from "./listFiles.js"
import { readFile } from "./readFile.js"
import { readPdf } from "./readPdf.js"
import { webSearch } from "./webSearch.js"
import { writeFile } from "./writeFile.js"

export { ASK_USER_TOOL_SPEC } from "./askUser.js"
export { executeJavascript, listFiles, readFile, readPdf, webSearch, writeFile }

/**
 * Every builtin tool, in catalog order.
 *
 * @since 0.1.0
 * @category tools
 */
export const builtinTools = [readFile, readPdf, writeFile, listFiles, webSearch, executeJavascript] as const
