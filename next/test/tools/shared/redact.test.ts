import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { redact, REDACT_MIN_FRAGMENT, REDACTED, redactor } from "../../../src/tools/shared/redact.js"

describe("redact", () => {
  const key = "tvly-\"s3cr3t\"/+<key>&"

  it.effect("replaces a secret as is, in its Bearer form, URL-encoded, JSON-escaped and HTML-escaped", () =>
    Effect.sync(() => {
      const text = [
        `Authorization: Bearer ${key}`,
        `https://e.com/?k=${encodeURIComponent(key)}`,
        JSON.stringify({ key }),
        `<p>${key.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")}</p>`
      ].join("\n")
      expect(redact(text, [key])).toBe([
        `Authorization: Bearer ${REDACTED}`,
        `https://e.com/?k=${REDACTED}`,
        `{"key":"${REDACTED}"}`,
        `<p>${REDACTED}</p>`
      ].join("\n"))
    }))

  it.effect("replaces every occurrence of every secret, Redacted values included; blank secrets are ignored", () =>
    Effect.sync(() => {
      const redactSecrets = redactor([Redacted.make("alpha-key"), "beta-key", "", "   "])
      expect(redactSecrets("alpha-key beta-key alpha-key; other text")).toBe(
        `${REDACTED} ${REDACTED} ${REDACTED}; other text`
      )
      expect(redactor([])("unchanged")).toBe("unchanged")
      expect(redactor(["  "])("unchanged  ")).toBe("unchanged  ")
    }))

  it.effect("treats secrets as text, not as patterns", () =>
    Effect.sync(() => {
      expect(redact("a.b a+b (x)|[y]", ["a.b", "(x)|[y]"])).toBe(`${REDACTED} a+b ${REDACTED}`)
      expect(redact("aXb", ["a.b"])).toBe("aXb")
    }))

  it.effect("replaces the longer of two overlapping secrets whole", () =>
    Effect.sync(() => {
      expect(redact("token-long-version", ["token", "token-long-version"])).toBe(REDACTED)
    }))

  it.effect("with cutAtEnd, replaces a start of a secret left at the end of a cut text (not shorter ones)", () =>
    Effect.sync(() => {
      const secret = "tvly-abcdef123456"
      expect(redact(`echo: ${secret.slice(0, 9)}`, [secret], { cutAtEnd: true })).toBe(`echo: ${REDACTED}`)
      expect(redact(`echo: ${secret.slice(0, 9)}`, [secret])).toBe(`echo: ${secret.slice(0, 9)}`)
      const short = secret.slice(0, REDACT_MIN_FRAGMENT - 1)
      expect(redact(`echo: ${short}`, [secret], { cutAtEnd: true })).toBe(`echo: ${short}`)
      // a whole secret at the end is replaced once
      expect(redact(`echo: ${secret}`, [secret], { cutAtEnd: true })).toBe(`echo: ${REDACTED}`)
    }))

  it.effect("the edges of the trailing fragment: exactly the shortest length counts, and a later shorter match never wins", () =>
    Effect.sync(() => {
      const secret = "tvly-abcdef123456"
      expect(redact(`echo: ${secret.slice(0, REDACT_MIN_FRAGMENT)}`, [secret], { cutAtEnd: true })).toBe(`echo: ${REDACTED}`)
      // the 12-character start of the first secret is replaced whole, not the 4 characters that
      // also start the second
      expect(redact("echo: longsecretval", ["longsecretvalue1", "tval99"], { cutAtEnd: true })).toBe(`echo: ${REDACTED}`)
    }))

  it.effect("replaces a secret HTML-escaped with an apostrophe", () =>
    Effect.sync(() => {
      expect(redact("<p>it&#39;s-secret-key</p>", ["it's-secret-key"])).toBe(`<p>${REDACTED}</p>`)
    }))
})
