/**
 * What a model reads about a tool: its description and each parameter's, written by the tool.
 * A parameter that lost its own `description` annotation still carries one in its JSON Schema:
 * the one Effect writes for its filter ("a string at least 1 character(s) long", "a number
 * between 1 and 500", "an integer"), which says nothing about what the parameter is for. Effect
 * writes those in lower case, and every description of ours starts with a capital, a digit or a
 * quote, so one that starts in lower case is not the tool's own.
 */
import { expect } from "@effect/vitest"
import type { ToolSpec } from "../../src/index.js"

interface Described {
  readonly name: string
  readonly spec: ToolSpec
}

const propertiesOf = (parameters: ToolSpec["parameters"]): ReadonlyArray<readonly [string, unknown]> =>
  typeof parameters.properties === "object" && parameters.properties !== null ? Object.entries(parameters.properties) : []

/** Asserts that each tool and each of its parameters has a description of its own of at least `minLength` characters. */
export const expectDescribedForTheModel = (tools: ReadonlyArray<Described>, minLength: number): void => {
  for (const tool of tools) {
    expect(tool.spec.description.length, tool.name).toBeGreaterThan(40)
    for (const [name, schema] of propertiesOf(tool.spec.parameters)) {
      const description = typeof schema === "object" && schema !== null && "description" in schema && typeof schema.description === "string"
        ? schema.description
        : ""
      expect(description.length, `${tool.name}.${name}`).toBeGreaterThan(minLength)
      expect(description, `${tool.name}.${name}: Effect's description for the schema, not the tool's`).toMatch(/^[^a-z]/)
    }
  }
}
