/**
 * What a model reads about a tool: its description and each parameter's, written by the tool.
 * A parameter that lost its own `description` annotation still carries one in its JSON Schema:
 * the one Effect writes for its filter ("a string at least 1 character(s) long", "a number
 * between 1 and 500", "an integer"), which says nothing about what the parameter is for. Effect
 * writes those in lower case, and every description of ours starts with a capital, a digit or a
 * quote, so one that starts in lower case is not the tool's own. Likewise a path parameter whose
 * own annotation is lost shows `WorkspacePath`'s description, which says only that it is a path.
 *
 * (On Effect 4 a description is read with `SchemaAST.resolveDescription`; Effect 3 had
 * `getDescriptionAnnotation`.)
 */
import { expect } from "@effect/vitest"
import * as SchemaAST from "effect/SchemaAST"
import { type ToolSpec, WorkspacePath } from "../../src/index.js"

/** What every path parameter would say without a description of its own. */
const PATH_DESCRIPTION = SchemaAST.resolveDescription(WorkspacePath.ast)

interface Described {
  readonly name: string
  readonly spec: ToolSpec
}

const propertiesOf = (parameters: ToolSpec["parameters"]): ReadonlyArray<readonly [string, unknown]> =>
  typeof parameters.properties === "object" && parameters.properties !== null ? Object.entries(parameters.properties) : []

const descriptionIn = (schema: unknown): string =>
  typeof schema === "object" && schema !== null && "description" in schema && typeof schema.description === "string"
    ? schema.description
    : ""

/** The description of parameter `name` in the tool's JSON Schema ("" when it has none). */
export const parameterDescription = (spec: ToolSpec, name: string): string =>
  descriptionIn(propertiesOf(spec.parameters).find(([key]) => key === name)?.[1])

/** Asserts that each tool and each of its parameters has a description of its own of at least `minLength` characters. */
export const expectDescribedForTheModel = (tools: ReadonlyArray<Described>, minLength: number): void => {
  for (const tool of tools) {
    expect(tool.spec.description.length, tool.name).toBeGreaterThan(40)
    for (const [name, schema] of propertiesOf(tool.spec.parameters)) {
      const description = descriptionIn(schema)
      expect(description.length, `${tool.name}.${name}`).toBeGreaterThan(minLength)
      expect(description, `${tool.name}.${name}: Effect's description for the schema, not the tool's`).toMatch(/^[^a-z]/)
      expect(description, `${tool.name}.${name}: WorkspacePath's description, not the tool's`).not.toBe(PATH_DESCRIPTION)
    }
  }
}
