/**
 * The data tools: JSON, CSV, YAML, checksums and Base64. All read-only.
 *
 * @since 0.1.0
 */
import { base64 } from "./base64.js"
import { convertFormat } from "./convertFormat.js"
import { hashFile } from "./hashFile.js"
import { queryJson, readJson } from "./jsonTools.js"
import { readCsv } from "./readCsv.js"

export { base64, convertFormat, hashFile, queryJson, readCsv, readJson }

/** The data tools, in catalog order. */
export const dataTools = [readJson, readCsv, queryJson, hashFile, base64, convertFormat] as const
