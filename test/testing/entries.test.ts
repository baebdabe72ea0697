/**
 * The two entries: `effect-tool-system` holds what an application runs, and
 * `effect-tool-system/testing` what only tests use (the fake layers and the sandbox's attack
 * catalog), none of which the main entry offers.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Main from "../../src/index.js"
import * as Testing from "../../src/testing.js"

const { ModeGate, QuestionHandler, UrlPolicy } = Main

describe("the public entries", () => {
  it("the main entry offers no fake layer and no attack catalog", () => {
    for (const name of ["SANDBOX_ESCAPE_VECTORS", "HOST_REACH_VECTORS", "DENIAL_OF_SERVICE_VECTORS"]) {
      expect(Object.keys(Main)).not.toContain(name)
    }
    expect(Object.keys(Main).filter((name) => name.startsWith("Test"))).toEqual([])
    expect(Object.keys(ModeGate)).not.toContain("layerOpen")
    expect(Object.keys(QuestionHandler)).not.toContain("layerScripted")
    expect(Object.keys(UrlPolicy)).not.toContain("layerAllowLoopback")
    for (const name of Object.keys(Testing)) expect(Object.keys(Main)).not.toContain(name)
  })

  it("the testing entry offers the fakes and the catalog", () => {
    expect(Object.keys(Testing).sort()).toEqual(["SANDBOX_ESCAPE_VECTORS", "TestModeGate", "TestQuestionHandler", "TestUrlPolicy"])
    expect(Object.keys(Testing.TestModeGate)).toEqual(["layerOpen"])
    expect(Object.keys(Testing.TestQuestionHandler)).toEqual(["layerScripted"])
    expect(Object.keys(Testing.TestUrlPolicy)).toEqual(["layerAllowLoopback"])
    expect(Testing.SANDBOX_ESCAPE_VECTORS.length).toBeGreaterThan(0)
  })
})
