/**
 * A server (`servers/hostile.mjs`, a real child process) that pushes at the bridge in volume:
 * with no rate limit, one that floods ping requests and never reads its stdin is stopped by the
 * cap on what waits to be written to it, the host's memory bounded; one write of 20,000 small
 * messages within a rate raised past it is read in slices, with the event loop running between
 * them, and the call is answered after it, for notifications and for requests the bridge
 * answers. In the slow lane: the bridge answers pings until 256 KiB wait, or parses (and
 * answers) all 20,000 messages, 0.7-1.3 s of CPU a test, and a burst run that blocks the loop
 * is repeated. The rest of the hostile server's tests are in `hostileServer.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_BLOCK_MS } from "../../helpers/loopDelay.js"
import { burstCall, flooded, MEMORY_MARGIN, noRestart, stopLogged } from "./hostileServerHarness.js"

describe("a server that floods ping requests and never reads its stdin", () => {
  it.live("with no rate limit, is stopped by the cap on what waits to be written to it", () =>
    Effect.gen(function*() {
      const r = yield* flooded("ping", { ...noRestart, maxPushedPerSecond: 1e9, maxQueuedBytes: 256 * 1024 })
      expect(r.state).not.toBe("up")
      expect(r.call).toMatchObject({ success: false })
      expect(r.call.error).toContain("it was stopped: it did not read what was sent to it (over 256 KiB waiting)")
      expect(stopLogged(r.logs, /stopped: it did not read what was sent to it/)).toBe(true)
      expect(r.gone).toBe(true)
      expect(r.growth).toBeLessThan(MEMORY_MARGIN)
    }), 20_000)
})

describe("one write of 20,000 small messages", () => {
  it.live.each(["burst", "burstRequests"])(
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
