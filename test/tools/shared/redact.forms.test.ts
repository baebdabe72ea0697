import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { redact, REDACTED } from "../../../src/tools/shared/redact.js"

describe("redact: base64 forms", () => {
  it.effect("replaces a secret's base64 echoed without its two padding characters, and with them", () =>
    Effect.sync(() => {
      const secret = "k3y-val"
      expect(Buffer.from(secret).toString("base64")).toBe("azN5LXZhbA==")
      expect(redact("basic azN5LXZhbA end", [secret])).toBe(`basic ${REDACTED} end`)
      expect(redact("basic azN5LXZhbA== end", [secret])).toBe(`basic ${REDACTED}== end`)
      expect(redact("basic AZN5LXZHBA", [secret])).toBe(`basic ${REDACTED}`)
    }))

  it.effect("replaces a secret's URL-safe base64 (- for +, _ for /) as well as the standard one", () =>
    Effect.sync(() => {
      const secret = "~~~?>?"
      expect(Buffer.from(secret).toString("base64")).toBe("fn5+Pz4/")
      expect(redact("std fn5+Pz4/ url fn5-Pz4_ done", [secret])).toBe(`std ${REDACTED} url ${REDACTED} done`)
      expect(redact("?t=fn5-Pz4_", [secret])).toBe(`?t=${REDACTED}`)
    }))
})

describe("redact: cutAtEnd", () => {
  it.effect("adds nothing to a text with no start of a secret at its end, even where the marker and what follows spell one", () =>
    Effect.sync(() => {
      // "abc" becomes "[REDACTED]", after which the text reads "...D]tail": a whole secret made by
      // the marker, not a cut one; the uncut redaction leaves it, and so does cutAtEnd
      const secrets = ["abc", "d]tail"]
      expect(redact("xabctail", secrets)).toBe(`x${REDACTED}tail`)
      expect(redact("xabctail", secrets, { cutAtEnd: true })).toBe(`x${REDACTED}tail`)
      // a true start of "d]tail" at the end is still replaced
      expect(redact("x d]ta", secrets, { cutAtEnd: true })).toBe(`x ${REDACTED}`)
    }))
})
