/**
 * Issue 50, structured output: a tool whose `success` schema encodes to an object is listed
 * with its `outputSchema` (made as its parameters' JSON Schema is, declared draft-07) and
 * answers each successful call with `structuredContent`, the value its text shows; SDK v2's
 * client checks the one against the other in both eras, over the stdio path (an in-memory
 * pair) and over HTTP. A tool without a success schema, or with one that is not an object, has
 * neither.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { tempDir } from "../../helpers/tempDir.js"
import { measure, partsOf, servedClient } from "./resultHarness.js"

const expected = {
  n: 3,
  label: "n=3",
  tags: ["a", "b"],
  pair: ["p", 3],
  at: "2026-01-02T00:00:00.000Z"
}

describe("structured output", () => {
  it("the outputSchema is made once, when the tool is defined: the JSON Schema of the success schema's encoded side", () => {
    expect(measure.outputSchema).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      required: ["n", "label", "tags", "pair", "at"],
      properties: {
        n: { type: "number" },
        label: { type: "string", description: "What was read" },
        tags: { type: "array", items: { type: "string" } },
        pair: { type: "array", minItems: 2, items: [{ type: "string" }, { type: "number" }], additionalItems: false },
        note: { type: "string" },
        at: expect.objectContaining({ type: "string" })
      },
      additionalProperties: false
    })
  })

  for (const wire of ["stdio", "http"] as const) {
    for (const era of ["legacy", "auto"] as const) {
      it.live(`${wire}, ${era === "legacy" ? "2025-11-25" : "2026-07-28"}: listed with outputSchema, answered with structuredContent the client checks`, () =>
        Effect.scoped(Effect.gen(function*() {
          const ws = yield* tempDir("mcp-structured-")
          const client = yield* servedClient(ws, wire, era)
          const { tools } = yield* Effect.promise(() => client.listTools())
          const byName = new Map(tools.map((tool) => [tool.name, tool]))
          expect(byName.get("measure")?.outputSchema).toEqual(measure.outputSchema)
          expect(byName.get("plain")?.outputSchema).toBeUndefined()
          expect(byName.get("stringy")?.outputSchema).toBeUndefined()

          // the client compiles the outputSchema and checks the content against it (it throws otherwise)
          const reply = yield* Effect.promise(() => client.callTool({ name: "measure", arguments: { n: 3 } }))
          expect(reply.isError).not.toBe(true)
          expect(reply.structuredContent).toEqual(expected)
          const { texts } = partsOf(reply)
          expect(texts).toHaveLength(1)
          expect(JSON.parse(texts[0] ?? "")).toEqual(reply.structuredContent)

          const without = yield* Effect.promise(() => client.callTool({ name: "plain", arguments: { n: 3 } }))
          expect(without.structuredContent).toBeUndefined()
          expect(partsOf(without).texts).toEqual([JSON.stringify({ n: 3 }, null, 2)])
          const text = yield* Effect.promise(() => client.callTool({ name: "stringy", arguments: {} }))
          expect(text.structuredContent).toBeUndefined()
          expect(partsOf(text).texts).toEqual(["just text"])

          // a failed call of a tool with an outputSchema: an error answer, no structured content
          const failed = yield* Effect.promise(() => client.callTool({ name: "measure", arguments: { n: "x" } }))
          expect(failed.isError).toBe(true)
          expect(failed.structuredContent).toBeUndefined()
        })))
    }
  }
})
