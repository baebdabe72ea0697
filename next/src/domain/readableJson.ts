/**
 * Any value as JSON data a model can read: what `JSON.stringify` would throw on or lose is
 * written out instead. A bigint becomes `"10n"`, a `Map` `{ "Map": [[key, value], ...] }`, a
 * `Set` `{ "Set": [...] }`, a function `"[Function name]"`, a symbol `"Symbol(x)"`, `NaN` and
 * the infinities their names, an `Error` its name and message, a cycle `"[Circular]"`; a
 * `toJSON` method is honoured (a `Date` is its ISO text). Plain JSON data comes out as
 * `JSON.stringify` has it.
 *
 * Bounded: at most `READABLE_MAX_NODES` values are visited and `READABLE_MAX_DEPTH` levels
 * entered; what lies past is `"[…]"`.
 *
 * @since 0.3.0
 */

/** Values visited at most. */
export const READABLE_MAX_NODES = 100_000

/** Levels of nesting entered at most. */
export const READABLE_MAX_DEPTH = 64

const PAST = "[…]"

/** The JSON data `value` reads as (see the module doc). */
export const readableJson = (value: unknown): unknown => {
  let nodes = 0
  const ancestors: Array<object> = []
  const go = (v: unknown, depth: number): unknown => {
    if (++nodes > READABLE_MAX_NODES || depth > READABLE_MAX_DEPTH) return PAST
    switch (typeof v) {
      case "string":
      case "boolean":
        return v
      case "number":
        return Number.isFinite(v) ? v : String(v)
      case "bigint":
        return `${v}n`
      case "symbol":
        return v.toString()
      case "function":
        return `[Function ${v.name === "" ? "(anonymous)" : v.name}]`
      case "undefined":
        return undefined
    }
    if (v === null || typeof v !== "object") return null
    if (ancestors.includes(v)) return "[Circular]"
    ancestors.push(v)
    try {
      return inner(v, depth)
    } finally {
      ancestors.pop()
    }
  }
  const inner = (v: object, depth: number): unknown => {
    const toJSON: unknown = Reflect.get(v, "toJSON")
    if (typeof toJSON === "function" && !(v instanceof Error)) {
      let json: unknown
      try {
        json = toJSON.call(v)
      } catch (error) {
        return `[toJSON failed: ${error instanceof Error ? error.message : String(error)}]`
      }
      if (v instanceof Date) return json ?? "Invalid Date"
      return json === v ? go({ ...v }, depth + 1) : go(json, depth + 1)
    }
    if (Array.isArray(v)) return v.map((item) => go(item, depth + 1) ?? null)
    if (v instanceof Map) return { Map: Array.from(v, ([key, item]) => [go(key, depth + 2), go(item, depth + 2)]) }
    if (v instanceof Set) return { Set: Array.from(v, (item) => go(item, depth + 1)) }
    if (v instanceof Number || v instanceof String || v instanceof Boolean) return go(v.valueOf(), depth)
    const out: Record<string, unknown> = {}
    if (v instanceof Error) {
      out.name = v.name
      out.message = v.message
    }
    for (const key of Object.keys(v)) {
      const item = go(Reflect.get(v, key), depth + 1)
      if (item !== undefined) out[key] = item
    }
    return out
  }
  return go(value, 0)
}

/**
 * `value` as readable JSON text (never a throw, never `[object Object]`, never a `Map` as `{}`),
 * indented by `indent` spaces when given; a value that reads as one string is that string (`10n`).
 * Every place that shows a value to a model or a person (a result, an MCP reply, the command
 * line, the audit log) goes through here.
 */
export const readableText = (value: unknown, indent?: number): string => {
  const json = readableJson(value)
  return typeof json === "string" ? json : JSON.stringify(json, null, indent) ?? "undefined"
}
