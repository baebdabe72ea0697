/**
 * When a handler's failure is shown by its tag and fields rather than its message: only a tagged
 * failure whose inherited message is a dump of its fields (`{ ... }`, whitespace around it
 * allowed) is; a message the failure sets itself, an untagged failure's message, or text around
 * braces is kept. A field with no JSON value (`undefined`) is left out of the message and details.
 */
import { describe, expect, it } from "@effect/vitest"
import { Data } from "effect"
import { ToolError } from "../../src/domain/errors.js"
import { detailsOf, messageOf } from "../../src/tools/definition.js"

/** A tagged failure whose message comes from its class, as an Effect 3 `Schema.TaggedError` without a `message` field had it. */
const taggedWith = (message: string) => {
  class Legacy extends Data.TaggedError("Legacy")<{ readonly id: number }> {
    override get message(): string {
      return message
    }
  }
  return new Legacy({ id: 2 })
}

/** An untagged failure whose message comes from its class. */
class JsonReport {
  get message(): string {
    return `{ "rows": 3 }`
  }
}

describe("a message that only dumps a failure's fields", () => {
  it("a tagged failure's inherited field dump is replaced by its tag and fields", () => {
    expect(messageOf(taggedWith("{ id: 2 }"))).toBe("Legacy (id: 2)")
    expect(messageOf(taggedWith("{}"))).toBe("Legacy (id: 2)")
    // laid out over lines, with whitespace around it
    expect(messageOf(taggedWith("\n  {\n    \"id\": 2\n  }\n"))).toBe("Legacy (id: 2)")
  })

  it("a tagged failure's inherited message that says more than its fields is kept", () => {
    expect(messageOf(taggedWith("quota exceeded: {id: 2}"))).toBe("quota exceeded: {id: 2}")
    expect(messageOf(taggedWith("{id: 2} is over its quota"))).toBe("{id: 2} is over its quota")
    expect(messageOf(taggedWith("no image 2"))).toBe("no image 2")
  })

  it("a message the failure sets itself is kept, even when it reads as JSON", () => {
    const own = new ToolError({ tool: "t", message: `{ "rows": 3 }` })
    expect(messageOf(own)).toBe(`{ "rows": 3 }`)
  })

  it("an untagged failure's message is kept, even when it reads as JSON", () => {
    expect(messageOf(new JsonReport())).toBe(`{ "rows": 3 }`)
  })
})

describe("a field with no JSON value", () => {
  it("is left out of the message and the details", () => {
    const failure = { _tag: "Missing", id: "7", note: undefined }
    expect(messageOf(failure)).toBe(`Missing (id: "7")`)
    expect(detailsOf(failure)).toStrictEqual({ id: "7" })
    expect(detailsOf({ note: undefined })).toBeUndefined()
    expect(messageOf({ _tag: "Missing", note: undefined })).toBe("Missing")
  })

  it("a field too large for the details is left out of the message too", () => {
    expect(messageOf({ _tag: "Big", id: "1", huge: "z".repeat(20_000) })).toBe(`Big (id: "1")`)
  })
})
