/**
 * A bridged server's form read and bounded (`screenQuestion`), the defaults of the fields left
 * out (`withDefaults`), and an answer checked against the form (`checkContent`): every spelling
 * of the spec's primitive fields, every bound, and a hostile server's forms (huge, wrong, with
 * keys that are prototype names).
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { checkContent, screenQuestion, withDefaults } from "../../../src/tools/mcp/elicitationSchema.js"

const question = (properties: unknown, extra: Record<string, unknown> = {}) => ({
  message: "Tell me",
  requestedSchema: { type: "object", properties, ...extra }
})
const refusal = (params: unknown) => {
  const screened = screenQuestion(params)
  return Result.isFailure(screened) ? screened.failure : undefined
}
const fieldsOf = (properties: unknown, extra: Record<string, unknown> = {}) => {
  const screened = screenQuestion(question(properties, extra))
  if (Result.isFailure(screened)) throw new Error(screened.failure)
  return screened.success.fields
}

describe("screenQuestion", () => {
  it("reads every spelling of the spec's fields into five kinds, in the server's order", () => {
    const fields = fieldsOf({
      name: { type: "string", title: "Name", description: "Who", minLength: 1, maxLength: 20, format: "email", default: "a@b.c" },
      age: { type: "integer", minimum: 0, maximum: 150 },
      score: { type: "number", default: 1.5 },
      ok: { type: "boolean", default: false },
      plain: { type: "string", enum: ["x", "y"] },
      legacy: { type: "string", enum: ["x", "y"], enumNames: ["Ex", "Why"] },
      titled: { type: "string", oneOf: [{ const: "x", title: "Ex" }, { const: "y", title: "Why" }], default: "y" },
      many: { type: "array", items: { type: "string", enum: ["a", "b"] }, minItems: 1, maxItems: 2, default: ["b"] },
      manyTitled: { type: "array", items: { anyOf: [{ const: "a", title: "A" }] } }
    }, { required: ["name", "ok"] })
    expect(fields.map((field) => [field._tag, field.key, field.required])).toEqual([
      ["Text", "name", true],
      ["Number", "age", false],
      ["Number", "score", false],
      ["Boolean", "ok", true],
      ["Choice", "plain", false],
      ["Choice", "legacy", false],
      ["Choice", "titled", false],
      ["Choices", "many", false],
      ["Choices", "manyTitled", false]
    ])
    expect(fields[0]).toMatchObject({ title: "Name", description: "Who", minLength: 1, maxLength: 20, format: "email", default: "a@b.c" })
    expect(fields[1]).toMatchObject({ title: "age", integer: true, minimum: 0, maximum: 150 })
    expect(fields[4]).toMatchObject({ options: [{ value: "x", title: "x" }, { value: "y", title: "y" }] })
    expect(fields[5]).toMatchObject({ options: [{ value: "x", title: "Ex" }, { value: "y", title: "Why" }] })
    expect(fields[6]).toMatchObject({ options: [{ value: "x", title: "Ex" }, { value: "y", title: "Why" }], default: "y" })
    expect(fields[7]).toMatchObject({ minItems: 1, maxItems: 2, default: ["b"] })
    expect(fields[8]).toMatchObject({ options: [{ value: "a", title: "A" }] })
    expect(fieldsOf({})).toEqual([])
  })

  it("refuses what is not a form question, naming why", () => {
    expect(refusal(undefined)).toBe("the request has no parameters")
    expect(refusal({ mode: "url", message: "m", url: "https://x", elicitationId: "1" })).toBe(
      `it asks in "url" mode; the bridge takes form questions only`
    )
    expect(refusal({ message: 5, requestedSchema: { type: "object", properties: {} } })).toBe("its message is not a string")
    expect(refusal({ message: "m", requestedSchema: { type: "array" } })).toBe("its requestedSchema is not an object schema with properties")
    expect(refusal(question({ a: { type: "object" } }))).toBe(`the field "a" is not a text, number, boolean or choice`)
    expect(refusal(question({ a: "string" }))).toBe(`the field "a" is not a schema`)
    expect(refusal(question({ a: { type: "string", format: "regex" } }))).toBe(`the field "a" has an unknown format`)
    expect(refusal(question({ a: { type: "number", minimum: "0" } }))).toBe(`the minimum of the field "a" is not a finite number`)
    expect(refusal(question({ a: { type: "string", minLength: -1 } }))).toBe(`the minLength of the field "a" is not a count`)
    expect(refusal(question({ a: { type: "string", enum: [] } }))).toBe(`the field "a" has no options`)
    expect(refusal(question({ a: { type: "string", enum: ["x", "x"] } }))).toBe(`the field "a" has the option "x" twice`)
    expect(refusal(question({ a: { type: "string", enum: ["x", 1] } }))).toBe(`an option of the field "a" is not a string`)
    expect(refusal(question({ a: { type: "boolean", default: "yes" } }))).toBe(`the default of the field "a" is not a boolean`)
    expect(refusal(question({ a: { type: "array", items: { enum: ["x"] }, default: ["y"] } }))).toBe(
      `the default of the field "a" is not a list of its options`
    )
    expect(refusal(question({ a: { type: "array" } }))).toBe(`the field "a" is an array without items`)
    expect(refusal(question({ a: { type: "string" } }, { required: "a" }))).toBe("its required list is not a list of its fields")
    expect(refusal(question({ a: { type: "string" } }, { required: ["toString"] }))).toBe(
      "its required list names a field the form does not have"
    )
  })

  it("bounds a hostile form: message, fields, options, every text and the whole", () => {
    expect(refusal({ ...question({}), message: "m".repeat(4001) })).toBe("its message has 4001 characters (at most 4000)")
    expect(refusal({ ...question({}), message: "m".repeat(4000) })).toBeUndefined()
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: "string" }]))
    expect(refusal(question(fields(32)))).toBeUndefined()
    expect(refusal(question(fields(33)))).toBe("its form has 33 fields (at most 32)")
    const options = (n: number) => Array.from({ length: n }, (_, i) => `o${i}`)
    expect(refusal(question({ a: { type: "string", enum: options(100) } }))).toBeUndefined()
    expect(refusal(question({ a: { type: "string", enum: options(101) } }))).toBe(`the field "a" has 101 options (at most 100)`)
    expect(refusal(question({ ["k".repeat(1001)]: { type: "string" } }))).toBe("a field's key has 1001 characters (at most 1000)")
    expect(refusal(question({ a: { type: "string", description: "d".repeat(1001) } }))).toBe(
      `the description of the field "a" has 1001 characters (at most 1000)`
    )
    // each text within its bound, the whole form past its own
    const wide = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`f${i}`, { type: "string", enum: options(100).map((o) => `${o}${"x".repeat(30)}`) }]))
    expect(refusal(question(wide))).toBe("the form has more than 64000 characters of text")
  })

  it("keeps a field named like a prototype property a field, and the form as it was sent", () => {
    const properties = JSON.parse(`{"__proto__": {"type": "string", "default": "p"}, "constructor": {"type": "boolean"}}`)
    const screened = screenQuestion(question(properties, { required: ["constructor"] }))
    expect(Result.isSuccess(screened)).toBe(true)
    if (Result.isFailure(screened)) return
    expect(screened.success.fields.map((field) => field.key)).toEqual(["__proto__", "constructor"])
    expect(Object.keys(screened.success.requestedSchema.properties)).toEqual(["__proto__", "constructor"])
    const filled = withDefaults(screened.success.fields, { constructor: true })
    expect(Object.keys(filled)).toEqual(["constructor", "__proto__"])
    expect(Object.getPrototypeOf(filled)).toBe(Object.prototype)
    const checked = checkContent(screened.success.fields, filled)
    expect(Result.isSuccess(checked) && Object.hasOwn(checked.success, "__proto__")).toBe(true)
  })
})

describe("withDefaults and checkContent", () => {
  const fields = fieldsOf({
    name: { type: "string", minLength: 2, maxLength: 3 },
    mail: { type: "string", format: "email" },
    site: { type: "string", format: "uri" },
    day: { type: "string", format: "date" },
    at: { type: "string", format: "date-time" },
    n: { type: "integer", minimum: 1, maximum: 9, default: 5 },
    x: { type: "number" },
    ok: { type: "boolean" },
    pick: { type: "string", enum: ["a", "b"] },
    picks: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, minItems: 1, maxItems: 2 }
  }, { required: ["ok"] })
  const issue = (content: unknown) => {
    const checked = checkContent(fields, content)
    return Result.isFailure(checked) ? checked.failure : undefined
  }

  it("fills only the fields left out, and keeps what was given", () => {
    expect(withDefaults(fields, { ok: true })).toEqual({ ok: true, n: 5 })
    expect(withDefaults(fields, { ok: true, n: 2 })).toEqual({ ok: true, n: 2 })
  })

  it("takes an answer of the form's kinds and bounds", () => {
    const good = {
      name: "Ada",
      mail: "ada@example.com",
      site: "https://example.com/x",
      day: "2026-02-28",
      at: "2026-02-28T10:00:00Z",
      n: 9,
      x: -0.5,
      ok: false,
      pick: "b",
      picks: ["c", "a"]
    }
    const checked = checkContent(fields, good)
    expect(Result.isSuccess(checked) ? checked.success : checked.failure).toEqual(good)
    expect(issue({ ok: true, name: "😀😀" })).toBeUndefined()
  })

  it("refuses an answer that does not match, naming the field", () => {
    expect(issue(null)).toBe("the content is not an object")
    expect(issue([])).toBe("the content is not an object")
    expect(issue({})).toBe(`the required field "ok" is missing`)
    expect(issue({ ok: "true" })).toBe(`the field "ok" is not a yes or no`)
    expect(issue({ ok: true, extra: 1 })).toBe(`"extra" is not a field of the form`)
    expect(issue({ ok: true, name: "A" })).toBe(`the field "name" is shorter than 2 characters`)
    expect(issue({ ok: true, name: "Adam" })).toBe(`the field "name" is longer than 3 characters`)
    expect(issue({ ok: true, name: "x".repeat(10_001) })).toBe(`the field "name" has more than 10000 characters`)
    expect(issue({ ok: true, mail: "ada" })).toBe(`the field "mail" is not a valid email`)
    expect(issue({ ok: true, site: "not a uri" })).toBe(`the field "site" is not a valid uri`)
    expect(issue({ ok: true, day: "2026-02-30" })).toBe(`the field "day" is not a valid date`)
    expect(issue({ ok: true, at: "2026-02-28 noon" })).toBe(`the field "at" is not a valid date-time`)
    expect(issue({ ok: true, n: 0 })).toBe(`the field "n" is below 1`)
    expect(issue({ ok: true, n: 10 })).toBe(`the field "n" is above 9`)
    expect(issue({ ok: true, n: 1.5 })).toBe(`the field "n" is not a whole number`)
    expect(issue({ ok: true, x: Number.NaN })).toBe(`the field "x" is not a number`)
    expect(issue({ ok: true, pick: "c" })).toBe(`the field "pick" is not one of its options`)
    expect(issue({ ok: true, picks: [] })).toBe(`the field "picks" has fewer than 1 picks`)
    expect(issue({ ok: true, picks: ["a", "b", "c"] })).toBe(`the field "picks" has more than 2 picks`)
    expect(issue({ ok: true, picks: ["a", "a"] })).toBe(`the field "picks" is not a list of its options`)
    expect(issue({ ok: true, picks: ["d"] })).toBe(`the field "picks" is not a list of its options`)
    expect(issue({ ok: true, picks: "a" })).toBe(`the field "picks" is not a list of its options`)
  })
})
