/**
 * `isWorkerAnswer`: the pool takes a worker's message as an answer only when it has the answer's
 * shape, and anything else a worker could post (an error's text, `null`, a half-built answer)
 * is refused without throwing.
 */
import { describe, expect, it } from "@effect/vitest"
import { isWorkerAnswer } from "../../../../src/tools/ported/reading/searchWorkerSource.js"

const answer = { id: 1, codes: new Uint8Array(1), data: new Uint8Array(0), ends: new Uint32Array(0) }

describe("isWorkerAnswer", () => {
  it("takes an answer", () => {
    expect(isWorkerAnswer(answer)).toBe(true)
  })

  it("refuses what is not an object, without throwing", () => {
    for (const message of [null, undefined, 1, "id codes data ends", true]) {
      expect(isWorkerAnswer(message), String(message)).toBe(false)
    }
  })

  it("refuses an object missing a field, or with a field of another type", () => {
    const { codes: _codes, ...noCodes } = answer
    expect(isWorkerAnswer(noCodes)).toBe(false)
    expect(isWorkerAnswer({ ...answer, id: "1" })).toBe(false)
    expect(isWorkerAnswer({ ...answer, codes: [0] })).toBe(false)
    expect(isWorkerAnswer({ ...answer, data: Buffer.alloc(0).buffer })).toBe(false)
    expect(isWorkerAnswer({ ...answer, ends: new Uint8Array(0) })).toBe(false)
  })
})
