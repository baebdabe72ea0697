/**
 * A raw JSON Schema with its `$ref`s inlined (what model APIs accept): the definitions put in
 * place, the headers dropped, `allOf` flattened where Effect 3 did.
 *
 * @since 1.0.0
 */
import { isRecord, REF_PREFIX } from "./jsonSchemaParts.js"

// -------------------------------------------------------------------------------------------------
// Inlining
// -------------------------------------------------------------------------------------------------

/** Keywords of a schema the generated one leaves out: headers and references, inlined here. */
const DROPPED = new Set(["$schema", "$defs", "$ref", "$id"])

/** Keywords whose value is data (a default, examples), not a schema: copied as they are. */
const DATA = new Set(["default", "examples", "const", "enum"])

/**
 * Replaces every `$ref` into `$defs` by the definition itself; refuses recursive schemas.
 * `namesMap`: `node` maps property names to schemas (`properties`), whose keys are names,
 * not keywords, whatever they are called (`$id`, `title`).
 */
export const inline = (node: unknown, defs: Record<string, unknown>, seen: ReadonlyArray<string>, namesMap = false): unknown => {
  if (Array.isArray(node)) return node.map((n) => inline(n, defs, seen))
  return isRecord(node) ? inlineObject(node, defs, seen, namesMap) : node
}

const inlineObject = (
  node: Record<string, unknown>,
  defs: Record<string, unknown>,
  seen: ReadonlyArray<string>,
  namesMap: boolean
): Record<string, unknown> => {
  let base = node
  if (typeof node.$ref === "string" && node.$ref.startsWith(REF_PREFIX)) {
    // a JSON pointer: `~1` and `~0` escape "/" and "~" (nothing else is escaped)
    const id = node.$ref.slice(REF_PREFIX.length).replace(/~1/g, "/").replace(/~0/g, "~")
    if (seen.includes(id)) throw new Error(`recursive schema "${id}" cannot be inlined`)
    const def = defs[id]
    if (!isRecord(def)) throw new Error(`missing definition "${id}"`)
    const { $ref: _ref, ...rest } = node
    // the annotations beside the reference (a description) win over the definition's
    base = { ...inlineObject(def, defs, [...seen, id], false), ...rest }
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(base)) {
    if (namesMap) {
      out[k] = inline(v, defs, seen)
      continue
    }
    if (DROPPED.has(k)) continue
    // Effect titles refinements ("int", "minLength(1)"): noise for a model, so schema titles go.
    if (k === "title" && typeof v === "string") continue
    out[k] = DATA.has(k) ? v : inline(v, defs, seen, k === "properties" || k === "patternProperties")
  }
  return flattenAllOf(out)
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * Merges the members of an `allOf` into the schema where no keyword conflicts (a refined
 * defaulted field is `{ allOf: [{ type: "integer", minimum: 1 }], default: 30 }`, and model
 * APIs want the `type` at the top). Conflicting members (two `pattern`s) stay.
 */
const flattenAllOf = (node: Record<string, unknown>): Record<string, unknown> => {
  if (!Array.isArray(node.allOf)) return node
  const { allOf, ...out } = node
  const kept: Array<unknown> = []
  for (const member of allOf) {
    const conflict = !isRecord(member) ||
      Object.keys(member).some((k) => k in out && k !== "description" && k !== "title" && !sameJson(out[k], member[k]))
    if (conflict || !isRecord(member)) {
      kept.push(member)
      continue
    }
    for (const [k, v] of Object.entries(member)) if (!(k in out)) out[k] = v
  }
  return kept.length > 0 ? { ...out, allOf: kept } : out
}
