/**
 * The V8 code cache of the command-line bundle: the compiled form of `cli.cjs` (and of each
 * side bundle it requires, `mcp-sdk.cjs`), kept beside it so that the next start skips most of
 * the compiling (Node 20 has no built-in compile cache).
 *
 * Freshness: V8 checks a cache only against the source's length (a cache made for another
 * source of the same length is accepted, and runs the old code), so each cache starts with the
 * SHA-256 of the bundle file it was made for, and one made for another source is not used.
 *
 * Trust: a code cache is code. It is read only when it is exactly as trusted as the bundle
 * beside it (same owner, writable by nobody else) and written only by that owner, into the
 * bundle's own directory. A global install owned by root that a user runs gets no cache: it
 * starts as it would without one. V8 itself rejects a cache made by another Node version or
 * with other flags; then a fresh one replaces it.
 *
 * Everything here is best-effort: a cache that cannot be read or written is not used, and the
 * command runs the same.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { closeSync, fstatSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"

/** Set to `0` to neither read nor write the cache. */
export const CODE_CACHE_ENV = "EFFECT_TOOL_SYSTEM_CODE_CACHE"

/** Whether the environment turned the cache off. */
export const cacheDisabled = (env: NodeJS.ProcessEnv = process.env): boolean => env[CODE_CACHE_ENV] === "0"

/**
 * The commands that keep a cache of their own. A cache holds what the run that made it
 * compiled, and the commands run different code: `call` of a builtin loads none of the 46
 * ported tools, `list` all of them, so a `list` started from a cache a `call` made compiles
 * them again (~20 ms, `bench/startup.ts`). Any other command line shares one cache.
 */
export const CACHED_COMMANDS: ReadonlyArray<string> = ["list", "describe", "call", "explain", "export", "docs", "mcp"]

/** The cache file of a bundle for this Node (one per version and architecture) and command (`argv[2]`). */
export const cacheFileOf = (bundle: string, command?: string): string =>
  command !== undefined && CACHED_COMMANDS.includes(command)
    ? `${bundle}.${command}.${process.version}-${process.arch}.cache`
    : `${bundle}.${process.version}-${process.arch}.cache`

/** What a cache is made for: the SHA-256 of the bundle's bytes (32 bytes, the cache's header). */
export const digestOf = (source: string | Uint8Array): Buffer => createHash("sha256").update(source).digest()

const WRITABLE_BY_OTHERS = 0o022

/**
 * V8's data in the cache, when the cache exists, was made for this source (`digest`), has the
 * bundle's owner and no group or other write bit.
 */
export const readCache = (cacheFile: string, bundle: string, digest: Buffer): Buffer | undefined => {
  let fd: number | undefined
  try {
    const owner = statSync(bundle).uid
    fd = openSync(cacheFile, "r")
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.uid !== owner || (stat.mode & WRITABLE_BY_OTHERS) !== 0) return undefined
    const bytes = readFileSync(fd)
    return bytes.subarray(0, digest.length).equals(digest) ? bytes.subarray(digest.length) : undefined
  } catch {
    return undefined // no cache yet, or not readable: compile as usual
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * Writes the cache for the source of `digest` (a temp file renamed over it, so a concurrent
 * start reads a whole one or none) when this process runs as the bundle's owner. Returns
 * whether it was written.
 */
export const writeCache = (cacheFile: string, bundle: string, digest: Buffer, data: Buffer): boolean => {
  const uid = process.getuid?.()
  const temp = `${cacheFile}.${process.pid}.tmp`
  try {
    // without `getuid` (Windows) `uid` is undefined, which no owner matches: nothing is written
    if (statSync(bundle).uid !== uid || statSync(dirname(cacheFile)).uid !== uid) return false
    writeFileSync(temp, Buffer.concat([digest, data]), { flag: "wx", mode: 0o644 })
    renameSync(temp, cacheFile)
    return true
  } catch {
    try {
      unlinkSync(temp)
    } catch {
      // the temp file was never created
    }
    return false // read-only install or full disk: the next start compiles as this one did
  }
}
