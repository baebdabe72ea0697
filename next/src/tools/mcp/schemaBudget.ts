/**
 * What ajv is given for an MCP server's input schema, and what that costs.
 *
 * A server's schema is not compiled as it came: a copy is made that keeps only what ajv
 * checks with, counted value by value (every enum and `required` member, every keyword), so a
 * 40,000-member `enum` costs 40,000, not the 2 objects it is written as. On the way:
 * - what is too costly and can be left to the server (it validates its own arguments) is
 *   simplified: a huge `enum` or `const` becomes the type of its members, `uniqueItems` over
 *   items that are not all scalars (ajv compares those pairwise: quadratic) is dropped;
 * - annotations (`description`, `examples`, `default`, ...) and keywords ajv ignores are
 *   dropped, so they cost nothing;
 * - `$ref` must point at a schema of the same document (`#`, `#/$defs/x`, ...): with refs
 *   compiled as functions (`inlineRefs: false`) each schema is built once, however often it is
 *   referenced; `$id`, anchors and dynamic refs are dropped, so no ref resolves elsewhere;
 * - every schema gets the work keyword (`validationWork.ts`) with its own cost, so that
 *   validating, even through recursive combinators, is counted and stopped at a bound.
 *
 * The schema as it came is first measured (at most `MAX_RAW_VALUES` values, `MAX_SCHEMA_DEPTH`
 * levels); neither walk recurses, and each stops as soon as a bound is passed.
 *
 * @since 0.1.0
 */
import { WORK_KEYWORD, type WorkCost } from "./validationWork.js"

/** Deepest nesting of objects and arrays in one schema. */
export const MAX_SCHEMA_DEPTH = 64
/** Most members of an `enum` checked here; a longer one is left to the server. */
export const MAX_ENUM_MEMBERS = 100
/** Most values in an `enum` or `const` checked here (members' contents included). */
const MAX_ENUM_VALUES = 400
/**
 * Most values in one schema as it came, dropped parts included: the schema is also shown to
 * models and compared with later listings, and that work must be bounded too.
 */
export const MAX_RAW_VALUES = 100_000

type Json = unknown
type Obj = Record<string, Json>

/** A keyword whose value is one schema. */
const ONE = new Set([
  "additionalProperties",
  "additionalItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties"
])
/** A keyword whose value is a list of schemas. */
const LIST = new Set(["allOf", "anyOf", "oneOf", "prefixItems"])
/** A keyword whose value maps names to schemas. */
const MAP = new Set(["properties", "patternProperties", "definitions", "$defs", "dependentSchemas"])
/** A keyword whose value is data ajv checks with. Any other keyword is dropped. */
const DATA = new Set([
  "type",
  "nullable",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired"
])
const SCALARS = new Set(["string", "number", "integer", "boolean", "null"])

/** What `budgetSchema` found. */
export interface SchemaBudget {
  /** The copy to compile (only meaningful when there is no `problem`). */
  readonly schema: Obj
  /** What compiling the copy costs, in values (at most just past the budget). */
  readonly cost: number
  /** Why the schema is refused, when it is. */
  readonly problem: string | undefined
  /** What is not checked here (left to the server), in a few words each. */
  readonly simplified: ReadonlyArray<string>
}

const isObj = (u: Json): u is Obj => typeof u === "object" && u !== null && !Array.isArray(u)

/** Values in `value` (itself included), counted up to just past `max`, without recursion. */
const countValues = (value: Json, max: number): number => {
  const stack: Array<Json> = [value]
  let count = 0
  for (let next = stack.pop(); count <= max && next !== undefined; next = stack.pop()) {
    count += 1
    if (typeof next === "object" && next !== null) for (const child of Object.values(next)) stack.push(child)
  }
  return count
}

/** Why `schema` as it came is too big to take at all (too many values, too deep), if it is. */
const shapeProblem = (schema: Json): string | undefined => {
  const stack: Array<{ readonly value: Json; readonly depth: number }> = [{ value: schema, depth: 1 }]
  let values = 1
  const tooMany = `it holds more than ${MAX_RAW_VALUES} values`
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { depth, value } = next
    if (typeof value !== "object" || value === null) continue
    if (depth > MAX_SCHEMA_DEPTH) return `it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`
    // counted while listed, so a million keys are not listed first; only objects and arrays
    // are stacked (a 40,000-member enum of strings is counted, not stacked)
    if (Array.isArray(value)) {
      if ((values += value.length) > MAX_RAW_VALUES) return tooMany
      for (const child of value) if (typeof child === "object" && child !== null) stack.push({ value: child, depth: depth + 1 })
    } else {
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue
        if (++values > MAX_RAW_VALUES) return tooMany
        const child: Json = Reflect.get(value, key)
        if (typeof child === "object" && child !== null) stack.push({ value: child, depth: depth + 1 })
      }
    }
  }
  return undefined
}

const jsonType = (value: Json): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "object" ? "object" : typeof value

/** Whether ajv checks `uniqueItems` of these items in linear time (items all of scalar types). */
const scalarItems = (items: Json): boolean => {
  if (!isObj(items)) return false
  const type = items.type
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : []
  return types.length > 0 && types.every((t) => typeof t === "string" && SCALARS.has(t))
}

/** Sets an own property (a key such as `__proto__` stays a key). */
const set = (target: Obj, key: string, value: Json) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })

const escape = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1")

/** One schema still to copy: where it is, and where its copy goes. */
interface Frame {
  readonly raw: Json
  readonly pointer: string
  readonly put: (copy: Json) => void
}

/**
 * Makes the copy of `schema` that ajv compiles, with its cost; refuses (in `problem`) a schema
 * past `maxCost`, nested deeper than `MAX_SCHEMA_DEPTH`, or with a `$ref` that does not point
 * at one of its own schemas.
 */
export const budgetSchema = (schema: Json, maxCost: number): SchemaBudget => {
  const simplified: Array<string> = []
  const pointers = new Set<string>()
  const refs: Array<string> = []
  let cost = 0
  let root: Obj = {}
  const stack: Array<Frame> = [{ raw: schema, pointer: "", put: (copy) => (root = isObj(copy) ? copy : {}) }]
  const refuse = (problem: string): SchemaBudget => ({ schema: root, cost, problem, simplified })
  const shape = shapeProblem(schema)
  if (shape !== undefined) return refuse(shape)
  const tooCostly = () => refuse(`it costs more than ${maxCost} to compile (each keyword and enum or required member counts)`)

  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const { pointer, raw } = frame
    pointers.add(pointer)
    if (++cost > maxCost) return tooCostly()
    if (!isObj(raw)) {
      // a boolean schema (anything else is not a schema: ajv refuses it at compile)
      frame.put(raw)
      continue
    }
    const copy: Obj = {}
    let local = 1
    let patterns = 0
    const at = (key: string) => `${pointer}/${escape(key)}`
    // the key is set now, so keys keep their order (the stack takes children last first)
    const child = (target: Obj, name: string, value: Json, where: string) => {
      set(target, name, undefined)
      stack.push({ raw: value, pointer: where, put: (c) => set(target, name, c) })
    }
    for (const key in raw) {
      if (!Object.hasOwn(raw, key)) continue
      const value = raw[key]
      if (ONE.has(key) || (key === "items" && !Array.isArray(value))) {
        child(copy, key, value, at(key))
      } else if (LIST.has(key) || key === "items") {
        if (!Array.isArray(value)) continue
        const list: Array<Json> = new Array(value.length)
        set(copy, key, list)
        value.forEach((v, i) => stack.push({ raw: v, pointer: `${at(key)}/${i}`, put: (c) => (list[i] = c) }))
      } else if (MAP.has(key) || key === "dependencies") {
        if (!isObj(value)) continue
        const map: Obj = {}
        set(copy, key, map)
        for (const name in value) {
          if (!Object.hasOwn(value, name)) continue
          local += 1
          if (key === "patternProperties") patterns += 1
          const entry = value[name]
          if (key === "dependencies" && Array.isArray(entry)) {
            set(map, name, entry)
            cost += countValues(entry, maxCost)
          } else {
            child(map, name, entry, `${at(key)}/${escape(name)}`)
          }
        }
      } else if (key === "enum" || key === "const") {
        const members = key === "enum" && Array.isArray(value) ? value : [value]
        const values = members.length > MAX_ENUM_MEMBERS ? Infinity : countValues(value, MAX_ENUM_VALUES)
        if (values > MAX_ENUM_VALUES) {
          simplified.push(`${at(key)}: ${key === "enum" ? `an enum of ${members.length} members` : "a large const"} (only its type is checked)`)
          if (!("type" in raw)) {
            copy.type = [...new Set(members.map(jsonType))]
            cost += 1
          }
        } else {
          set(copy, key, value)
          cost += values
          local += values
        }
      } else if (key === "uniqueItems") {
        if (value !== true) continue
        if (scalarItems(raw.items)) {
          set(copy, key, value)
        } else {
          simplified.push(`${at(key)}: uniqueItems over items that are not all scalars (pairwise comparison)`)
        }
      } else if (key === "$ref") {
        if (typeof value !== "string") return refuse(`its $ref at "#${pointer}" is not a string`)
        refs.push(value)
        set(copy, key, value)
      } else if (DATA.has(key)) {
        const values = countValues(value, maxCost)
        set(copy, key, value)
        cost += values
        local += values
      }
      if (cost > maxCost) return tooCostly()
    }
    const work: WorkCost = { node: local, perKey: 1 + patterns }
    copy[WORK_KEYWORD] = work
    frame.put(copy)
    if (cost > maxCost) return tooCostly()
  }

  for (const ref of refs) {
    let target: string | undefined
    try {
      target = ref.startsWith("#") ? decodeURIComponent(ref.slice(1)) : undefined
    } catch {
      target = undefined
    }
    if (target === undefined || !pointers.has(target)) {
      return refuse(`its $ref "${ref.slice(0, 100)}" does not point at a schema of its own`)
    }
  }
  return { schema: root, cost, problem: undefined, simplified }
}
