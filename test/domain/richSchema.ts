/**
 * A parameter schema with every kind of field a tool uses, shared by the schema and export
 * tests. `Point` has an identifier, so the generated JSON Schema refers to it (and inlines it).
 */
import { Effect, Schema } from "effect"
import { WorkspacePath } from "../../src/domain/WorkspacePath.js"

export const Point = Schema.Struct({
  x: Schema.Number.annotate({ description: "x coordinate" }),
  y: Schema.Number.pipe(Schema.withDecodingDefaultType(Effect.succeed(0))).annotateKey({ description: "y coordinate" }),
  label: Schema.optional(Schema.String).annotateKey({ description: "nested label" })
}).annotate({ identifier: "Point", description: "A point" })

export const Rich = Schema.Struct({
  path: WorkspacePath.annotate({ description: "The file to search" }),
  query: Schema.String.annotate({ description: "What to look for" }),
  limit: Schema.optional(Schema.Int.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(100))).annotateKey({
    description: "At most this many matches"
  }),
  mode: Schema.Literals(["fast", "thorough"]).pipe(Schema.withDecodingDefaultType(Effect.succeed("fast" as const))).annotateKey({
    description: "Search mode"
  }),
  level: Schema.Literals([1, 2, 3]).annotate({ description: "Depth" }),
  origin: Point,
  waypoints: Schema.optional(Schema.Array(Point)),
  tags: Schema.Array(Schema.String).annotate({ description: "Labels" }),
  recursive: Schema.Boolean.pipe(Schema.withDecodingDefaultType(Effect.succeed(false))),
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
