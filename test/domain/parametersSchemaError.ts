/** The message `parametersJsonSchema` throws for a schema it cannot write, for the tests that read it. */
import type { Schema } from "effect"
import { parametersJsonSchema } from "../../src/domain/parametersSchema.js"

/** The message `parametersJsonSchema` throws for `schema` (a test fails where it throws none). */
export const errorOf = (schema: Schema.Top): string => {
  try {
    parametersJsonSchema(schema)
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  throw new Error("no error")
}
