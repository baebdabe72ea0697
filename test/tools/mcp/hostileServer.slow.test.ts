/**
 * One write of 20,000 small messages from a server (`servers/hostile.mjs`, a real child
 * process), within a rate raised past it: the bridge reads it in slices, with the event loop
 * running between them, and the call is answered after it, for notifications and for requests
 * the bridge answers. In the slow lane: the bridge parses (and answers) all 20,000, 0.8-1 s of
 * CPU a test, and a run that blocks the loop is repeated. The rest of the hostile server's
 * tests are in `hostileServer.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_BLOCK_MS } from "../../helpers/loopDelay.js"
import { burstCall, noRestart } from "./hostileServerHarness.js"

describe("one write of 20,000 small messages", () => {
  it.scopedLive.each(["burst", "burstRequests"])(
    "%s within a raised rate: read in slices with the event loop running between them, and the call is answered after it",
    (mode) =>
      Effect.gen(function*() {
        const r = yield* burstCall(mode, { ...noRestart, maxPushedPerSecond: 1e9, maxPushedBytesPerSecond: 1e12 })
        expect(r.call).toMatchObject({ success: true, output: "worked" })
        expect(r.maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
      }),
    30_000
  )
})
