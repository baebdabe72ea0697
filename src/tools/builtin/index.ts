/**
 * The builtin tools.
 *
 * @since 0.1.0
 */
import { readFile } from "./readFile.js"
import { writeFile } from "./writeFile.js"

export { readFile, writeFile }

/** Every builtin tool, in catalog order. */
export const builtinTools = [readFile, writeFile] as const
