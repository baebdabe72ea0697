/**
 * The text tools: counts, regular expressions, diffs and JSON formatting. All read-only.
 *
 * @since 0.1.0
 */
import { diffText } from "./diffText.js"
import { formatJson } from "./formatJson.js"
import { regexExtract } from "./regexExtract.js"
import { textStatsTool } from "./textStats.js"

export { diffText, formatJson, regexExtract, textStatsTool }

/** The text tools, in catalog order. */
export const textTools = [textStatsTool, regexExtract, diffText, formatJson] as const
