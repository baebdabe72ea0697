/**
 * A parameter schema with every kind of field a tool uses, shared by the schema and export
 * tests. `Point` has an identifier, so `JSONSchema.make` puts it in `$defs`.
 */
import { Schema } from "effect"
import { WorkspacePath } from "../../src/domain/WorkspacePath.js"

export const Point = Schema.Struct({
  x: Schema.Number.annotations({ description: "x coordinate" }),
  y: Schema.optionalWith(Schema.Number, { default: () => 0 }).annotations({ description: "y coordinate" }),
  label: Schema.optional(Schema.String).annotations({ description: "nested label" })
}).annotations({ identifier: "Point", description: "A point" })

export const Rich = Schema.Struct({
  path: WorkspacePath.annotations({ description: "The file to search" }),
  query: Schema.String.annotations({ description: "What to look for" }),
  limit: Schema.optional(Schema.Int.pipe(Schema.positive(), Schema.lessThanOrEqualTo(100))).annotations({
    description: "At most this many matches"
  }),
  mode: Schema.optionalWith(Schema.Literal("fast", "thorough"), { default: () => "fast" as const }).annotations({
    description: "Search mode"
  }),
  level: Schema.Literal(1, 2, 3).annotations({ description: "Depth" }),
  origin: Point,
  waypoints: Schema.optional(Schema.Array(Point)),
  tags: Schema.Array(Schema.String).annotations({ description: "Labels" }),
  recursive: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  also: Schema.optional(Schema.Array(WorkspacePath)),
  note: Schema.NullOr(Schema.String)
})

/** A JSON object (not an array, not null). */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Every key used anywhere in a JSON value. */
export const keysDeep = (node: unknown, out: Set<string> = new Set()): Set<string> => {
  if (Array.isArray(node)) for (const n of node) keysDeep(n, out)
  else if (isRecord(node)) {
    for (const [k, v] of Object.entries(node)) {
      out.add(k)
      keysDeep(v, out)
    }
  }
  return out
}
