/**
 * Proxy names: `"{server}__{tool}"`, made to fit `^[a-zA-Z0-9_-]{1,64}$` when the server's
 * names do not (dots, spaces, non-ASCII, too long): every other character becomes `_`, and a
 * short hash of the original pair keeps names distinct and stable across runs.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { NAME_PATTERN } from "../../domain/ToolSpec.js"

/** Hex digits of the hash appended to a name that had to change. */
const HASH_CHARS = 8

/**
 * The registry name of a server's tool. A name that fits is kept as it is; one that does not
 * is sanitized and shortened, ending in `_` and 8 hex digits of a SHA-256 of the pair.
 *
 * @since 0.1.0
 * @category utils
 *
 * @example
 * ```ts
 * import { proxyName } from "effect-tool-system/mcp"
 *
 * proxyName("files", "read")        // "files__read"
 * proxyName("files", "read.file")   // "files__read_file_1f0c9a2b" (hash shown as an example)
 * ```
 */
export const proxyName = (server: string, tool: string): string => {
  const plain = `${server}__${tool}`
  if (NAME_PATTERN.test(plain)) return plain
  const hash = createHash("sha256").update(JSON.stringify([server, tool])).digest("hex").slice(0, HASH_CHARS)
  const safe = plain.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64 - HASH_CHARS - 1)
  return `${safe}_${hash}`
}

/**
 * Where a proxy leads: the server's name and the tool's own name there.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProxyTarget {
  readonly server: string
  readonly tool: string
}
