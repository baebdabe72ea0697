/**
 * The URL policy's client below the check of the URL: its connector refuses an address literal
 * by itself (defence in depth, for whatever reaches it without `checkUrl`), and a refusal is
 * found in a connection error's chain of causes, up to its seventh cause.
 */
import * as Undici from "@effect/platform-node/Undici"
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { guardedConnector, refusalIn } from "../../src/layers/UrlPolicy.js"
import { compileRules, UrlRefused, type UrlPolicyRules } from "../../src/layers/urlPolicyRules.js"

const rulesOf = (rules: UrlPolicyRules) => {
  const compiled = compileRules(rules)
  if (Result.isFailure(compiled)) throw compiled.failure
  return compiled.success
}

/** Connects with a connector that records what reached it instead of opening a socket. */
const connectThrough = (rules: UrlPolicyRules, hostname: string, port: string) => {
  const reached: Array<string> = []
  const build = (): Undici.buildConnector.connector => (options, callback) => {
    reached.push(`${options.hostname}:${options.port}`)
    callback(new Error("no socket in this test"), null)
  }
  const connector = guardedConnector(Undici, rulesOf(rules), { buildConnector: build })
  const answers: Array<Error | null> = []
  connector({ hostname, host: hostname, protocol: "http:", port, localAddress: null }, (...[error]) => {
    answers.push(error)
  })
  // both connectors answer at once (no socket is opened)
  expect(answers).toHaveLength(1)
  return { answer: answers[0], reached }
}

describe("the URL policy's connector", () => {
  it("refuses an address literal itself, before the connector underneath is reached", () => {
    const refused = connectThrough({}, "10.0.0.1", "80")
    expect(refused.answer).toBeInstanceOf(UrlRefused)
    expect(refused.answer instanceof UrlRefused && refused.answer.range).toBe("private")
    expect(refused.reached).toEqual([])
    const v6 = connectThrough({}, "::1", "8080")
    expect(v6.answer instanceof UrlRefused && v6.answer.range).toBe("loopback")
    expect(v6.reached).toEqual([])
  })

  it("passes an allowed literal and every name on (a name is judged by the lookup)", () => {
    expect(connectThrough({ allow: ["10.0.0.1:80"] }, "10.0.0.1", "80").reached).toEqual(["10.0.0.1:80"])
    expect(connectThrough({}, "svc.test", "80").reached).toEqual(["svc.test:80"])
  })
})

describe("refusalIn", () => {
  const refusal = new UrlRefused({ target: "x", reason: "address", address: "10.0.0.1", range: "private", message: "refused" })
  const wrappedIn = (levels: number): unknown => {
    let error: unknown = refusal
    for (let i = 0; i < levels; i++) error = new Error(`level ${i}`, { cause: error })
    return error
  }

  it("finds the refusal itself and under up to seven causes, not deeper", () => {
    expect(refusalIn(refusal)).toBe(refusal)
    expect(refusalIn(wrappedIn(7))).toBe(refusal)
    expect(refusalIn(wrappedIn(8))).toBeUndefined()
  })

  it("stops at a value that is no object, and at an error without a cause", () => {
    expect(refusalIn("refused")).toBeUndefined()
    expect(refusalIn(new Error("plain"))).toBeUndefined()
    expect(refusalIn(new Error("null cause", { cause: null }))).toBeUndefined()
  })
})
