/**
 * SEP-2243 (the 2026-07-28 Streamable HTTP transport, "Custom Headers from Tool Parameters"):
 * a server may mark a tool's parameter with `x-mcp-header: "Name"` in its input schema, and a
 * client then sends the argument's value in an `Mcp-Param-Name` header with each `tools/call`,
 * so that load balancers, gateways and WAFs can route on it without reading the body. The
 * server checks the header against the body and refuses a call without it (400, `-32020`
 * HeaderMismatch).
 *
 * What the bridge does, for a `url` entry that speaks 2026-07-28 (a stdio server, or one that
 * speaks 2025-11-25, is not touched: headers do not exist on stdio, and the 2025 era has none):
 * - **Listing**: each tool's declarations are checked as the spec asks (a non-empty RFC 9110
 *   token, so no space, colon, control character or non-ASCII letter; case-insensitively unique
 *   in the schema; on a `string`, `integer` or `boolean` property only, never `number`; on a
 *   property reached from the root through `properties` keys only, never under `items`,
 *   `oneOf`, `$defs`, ...). A tool that breaks one is left out of the listing, with a warning
 *   naming why, and the server's other tools stay (the spec's MUST).
 * - **Calls**: each declared argument present (not `null`) is mirrored into its header; a
 *   string that is not a plain visible-ASCII value (non-ASCII, a control character, leading or
 *   trailing whitespace, empty, or one that looks like the sentinel) is sent as
 *   `=?base64?{UTF-8 in Base64}?=`; an integer as its decimal form, a boolean as `true`/`false`.
 *   The standard headers (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`) are the SDK
 *   transport's: it sets them on every 2026-07-28 request.
 * - **A HeaderMismatch answer** (`-32020`: the server's declarations changed since the listing,
 *   say) fails the call saying so, and the server's tools are listed again (`callRequest.ts`).
 *   The call is not sent again by itself: a changed definition is held like every other change.
 *
 * What a server declares is untrusted, so the work is bounded: at most `MAX_PARAM_HEADERS`
 * declarations in one tool and names of at most `MAX_PARAM_HEADER_NAME_CHARS` characters (past
 * either, the tool is left out); the walk visits at most `MAX_SCAN_NODES` schemas of one tool,
 * `MAX_SCHEMA_DEPTH` deep (a tool past these is left out: the listing's own bounds,
 * `listingLimits.ts`, would leave it out anyway), does not recurse, and never reads data
 * keywords (`enum`, `default`, ...). The headers of one
 * call together may be at most `MAX_PARAM_HEADER_BYTES`: a call whose arguments would make
 * more fails before it is sent, saying which (a server's header limit is often 8 to 16 KiB,
 * and a value past it cannot be mirrored, so the server would refuse the call anyway).
 *
 * The SDK's own scan (`Client.listTools`, `Client.callTool`) is not exported and not used: the
 * bridge lists with plain `tools/list` requests (`clientRequests.ts`), and that scan is unbounded.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { McpTool } from "./connection.js"
import { yieldToEventLoop } from "./listingLimits.js"
import { MAX_SCHEMA_DEPTH } from "./schemaBudget.js"

/**
 * Most `x-mcp-header` declarations in one tool's input schema (past it, the tool is left out).
 *
 * @since 1.0.0
 * @category constants
 */
export const MAX_PARAM_HEADERS = 64
/**
 * Longest `x-mcp-header` name, in characters (past it, the tool is left out).
 *
 * @since 1.0.0
 * @category constants
 */
export const MAX_PARAM_HEADER_NAME_CHARS = 128
/**
 * Most bytes of the `Mcp-Param-*` headers of one call together (names, values, separators).
 *
 * @since 1.0.0
 * @category constants
 */
export const MAX_PARAM_HEADER_BYTES = 8 * 1024
/** Most schemas visited in one tool's input schema (past it, the tool is left out). */
const MAX_SCAN_NODES = 20_000
/** Schemas visited in a listing between two yields to the event loop. */
const NODES_PER_TURN = 20_000

/** The header name prefix. */
const PREFIX = "Mcp-Param-"
/** RFC 9110's `token` (`1*tchar`): no space, control character, delimiter or non-ASCII. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const SENTINEL_START = "=?base64?"
const SENTINEL_END = "?="

/**
 * One parameter mirrored into a header: where its value is in the arguments (the chain of
 * `properties` keys), the header's name after `Mcp-Param-`, and the declared type.
 *
 * @since 1.0.0
 * @category models
 */
export interface ParamHeader {
  readonly path: ReadonlyArray<string>
  readonly name: string
  readonly type: "string" | "integer" | "boolean"
}

/**
 * What one tool's input schema declares: its headers (maybe none), or why it is invalid.
 *
 * @since 1.0.0
 * @category models
 */
export type ParamHeaderScan =
  | { readonly _tag: "Valid"; readonly headers: ReadonlyArray<ParamHeader>; readonly visited: number }
  | { readonly _tag: "Invalid"; readonly reason: string; readonly visited: number }

/** Keywords whose value is one schema, or an array of schemas: none is reached through `properties` alone. */
const SUBSCHEMA_KEYWORDS = [
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "contentSchema",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else"
] as const
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYWORDS = ["patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"] as const

const PERMITTED_TYPES: ReadonlySet<string> = new Set(["string", "integer", "boolean"])

/** A server's text in a message: cut, and anything but visible ASCII escaped (it may be a name with a control character). */
const shown = (text: string): string => {
  const cut = text.length > 64 ? `${text.slice(0, 64)}…` : text
  return `"${cut.replace(/[^\x20-\x7e]|["\\]/g, (c) => (c === "\"" || c === "\\" ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))}"`
}

/** Where a declaration is, as a message names it. */
const where = (path: ReadonlyArray<string>): string =>
  path.length === 0 ? "the schema's root" : shown(path.join("."))

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

interface Visit {
  readonly node: unknown
  readonly path: ReadonlyArray<string>
  /** Reached from the root through `properties` keys only. */
  readonly reachable: boolean
}

/**
 * The `x-mcp-header` declarations of `inputSchema`, checked as SEP-2243 asks (see the module's
 * note), within the bounds. A walk with a stack of its own, depth first; the first fault ends it.
 *
 * @since 1.0.0
 * @category utils
 */
export const scanParamHeaders = (inputSchema: unknown): ParamHeaderScan => {
  const headers: Array<ParamHeader> = []
  const seen = new Map<string, string>()
  const stack: Array<Visit> = [{ node: inputSchema, path: [], reachable: true }]
  let visited = 0
  const invalid = (reason: string): ParamHeaderScan => ({ _tag: "Invalid", reason, visited })
  const tooMany = () => invalid(`its input schema has more than ${MAX_SCAN_NODES} schemas to look for x-mcp-header in (the bridge's bound)`)
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { node, path, reachable } = next
    if (!isObject(node)) continue
    visited += 1
    if (visited > MAX_SCAN_NODES) return tooMany()
    if (Object.hasOwn(node, "x-mcp-header")) {
      const name: unknown = node["x-mcp-header"]
      if (!reachable || path.length === 0) {
        return invalid(
          `its x-mcp-header at ${where(path)} is not on a property reached from the root through "properties" alone (not under items, oneOf/anyOf/allOf/not, if/then/else, $defs or $ref)`
        )
      }
      if (typeof name !== "string" || name.length === 0) return invalid(`its x-mcp-header at ${where(path)} is not a non-empty string`)
      if (name.length > MAX_PARAM_HEADER_NAME_CHARS) {
        return invalid(`its x-mcp-header at ${where(path)} is longer than ${MAX_PARAM_HEADER_NAME_CHARS} characters (the bridge's bound)`)
      }
      if (!TOKEN.test(name)) {
        return invalid(`its x-mcp-header ${shown(name)} at ${where(path)} is not an HTTP token (no space, control character, delimiter or non-ASCII letter)`)
      }
      const type = node.type
      if (typeof type !== "string" || !PERMITTED_TYPES.has(type)) {
        return invalid(
          `its x-mcp-header ${shown(name)} is on a property of type ${typeof type === "string" ? shown(type) : "other than one"} (only string, integer or boolean)`
        )
      }
      const lower = name.toLowerCase()
      const before = seen.get(lower)
      if (before !== undefined) return invalid(`its x-mcp-header ${shown(name)} is declared twice (also as ${shown(before)}; names are compared without case)`)
      seen.set(lower, name)
      if (headers.length >= MAX_PARAM_HEADERS) {
        return invalid(`its input schema declares more than ${MAX_PARAM_HEADERS} x-mcp-header parameters (the bridge's bound)`)
      }
      headers.push({ path, name, type: type === "string" ? "string" : type === "integer" ? "integer" : "boolean" })
    }
    if (path.length >= MAX_SCHEMA_DEPTH) {
      return invalid(`its input schema is nested deeper than ${MAX_SCHEMA_DEPTH} schemas (the bridge's bound)`)
    }
    const children: Array<Visit> = []
    let entries = 0
    const add = (child: unknown, at: ReadonlyArray<string>, reach: boolean): boolean => {
      entries += 1
      if (isObject(child)) children.push({ node: child, path: at, reachable: reach })
      // what waits counts too, schema or not: a million properties are refused before they are all queued
      return visited + stack.length + entries <= MAX_SCAN_NODES
    }
    const properties = node.properties
    let within = true
    if (isObject(properties)) {
      for (const key in properties) {
        if (!Object.hasOwn(properties, key)) continue
        within = add(properties[key], [...path, key], reachable)
        if (!within) break
      }
    }
    for (const keyword of SUBSCHEMA_KEYWORDS) {
      const value = node[keyword]
      if (value === undefined || !within) continue
      for (const branch of Array.isArray(value) ? value : [value]) {
        within = add(branch, [...path, `<${keyword}>`], false)
        if (!within) break
      }
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const value = node[keyword]
      if (!isObject(value) || !within) continue
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue
        within = add(value[key], [...path, `<${keyword}>`, key], false)
        if (!within) break
      }
    }
    if (!within) return tooMany()
    // last pushed, first visited: in reverse, so the schema is walked in the order it is written
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i]
      if (child !== undefined) stack.push(child)
    }
  }
  return { _tag: "Valid", headers, visited }
}

/**
 * `value` as a header value: as it is when it is plain visible ASCII (tabs and inner spaces
 * allowed), else `=?base64?{its UTF-8 in Base64}?=` (non-ASCII, control characters, leading or
 * trailing whitespace, empty, or a value that itself looks like the sentinel).
 *
 * @since 1.0.0
 * @category utils
 */
export const encodeHeaderValue = (value: string): string => {
  const plain = value.length > 0 &&
    /^[\t\x20-\x7e]*$/.test(value) &&
    value.trim() === value &&
    !(value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END))
  return plain ? value : `${SENTINEL_START}${Buffer.from(value, "utf8").toString("base64")}${SENTINEL_END}`
}

/** The argument at `path` (own properties only: a key `__proto__` or `toString` finds nothing inherited). */
const valueAt = (args: unknown, path: ReadonlyArray<string>): unknown => {
  let node = args
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined
    node = node[key]
  }
  return node
}

/** A value's text as its declared type has it, or why it cannot be one. */
const textOf = (value: unknown, type: ParamHeader["type"]): Result.Result<string, string> => {
  switch (type) {
    case "string":
      return typeof value === "string" ? Result.succeed(value) : Result.fail("is not a string")
    case "boolean":
      return typeof value === "boolean" ? Result.succeed(value ? "true" : "false") : Result.fail("is not a boolean")
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value)
        ? Result.succeed(String(value))
        : Result.fail("is not an integer between -(2^53 - 1) and 2^53 - 1")
  }
}

/**
 * The `Mcp-Param-*` headers of one call of a tool with `declared` headers: one per argument
 * present and not `null`, encoded (`encodeHeaderValue`). Fails, saying why, when an argument is
 * not of its declared type or the headers would pass `MAX_PARAM_HEADER_BYTES`.
 *
 * @since 1.0.0
 * @category utils
 */
export const paramHeadersOf = (
  declared: ReadonlyArray<ParamHeader>,
  args: unknown
): Result.Result<Readonly<Record<string, string>>, string> => {
  const headers: Record<string, string> = {}
  let bytes = 0
  const tooLarge = (name: string) =>
    Result.fail(`the headers its arguments are mirrored into (Mcp-Param-*) would be over ${MAX_PARAM_HEADER_BYTES} bytes at Mcp-Param-${name}, the bridge's bound`)
  for (const { name, path, type } of declared) {
    const value = valueAt(args, path)
    if (value === undefined || value === null) continue
    const text = textOf(value, type)
    if (Result.isFailure(text)) return Result.fail(`its argument ${shown(path.join("."))} (mirrored into Mcp-Param-${name}) ${text.failure}`)
    // an encoded value is never shorter than the text: a long one fails before it is encoded
    if (bytes + text.success.length > MAX_PARAM_HEADER_BYTES) return tooLarge(name)
    const encoded = encodeHeaderValue(text.success)
    bytes += PREFIX.length + name.length + 2 + encoded.length + 2
    if (bytes > MAX_PARAM_HEADER_BYTES) return tooLarge(name)
    headers[`${PREFIX}${name}`] = encoded
  }
  return Result.succeed(headers)
}

/**
 * A listing of a server that mirrors headers: the tools whose declarations are valid, in
 * order, and the declarations of those that declare any (by tool name). Each tool left out is
 * logged (`MCP server "s": tool "t" skipped: ...`); the walk yields to the event loop between
 * tools once it visited `NODES_PER_TURN` schemas.
 *
 * @internal
 */
export const screenParamHeaders = (
  server: string,
  tools: ReadonlyArray<McpTool>
): Effect.Effect<{ readonly tools: ReadonlyArray<McpTool>; readonly declared: ReadonlyMap<string, ReadonlyArray<ParamHeader>> }> =>
  Effect.gen(function*() {
    const taken: Array<McpTool> = []
    const declared = new Map<string, ReadonlyArray<ParamHeader>>()
    let work = 0
    for (const tool of tools) {
      if (work >= NODES_PER_TURN) {
        work = 0
        yield* yieldToEventLoop
      }
      const scan = scanParamHeaders(tool.inputSchema)
      work += scan.visited
      if (scan._tag === "Invalid") {
        yield* Effect.logWarning(`MCP server "${server}": tool "${tool.name}" skipped: ${scan.reason}`)
        continue
      }
      taken.push(tool)
      if (scan.headers.length > 0) declared.set(tool.name, scan.headers)
    }
    return { tools: taken, declared }
  })
