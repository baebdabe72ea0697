/**
 * fetch_url on HTML that would stall the converter (150,000 nested elements): the conversion,
 * in a worker, is stopped at its deadline, and the main thread keeps running meanwhile. In the
 * slow lane: the worker converts for the whole deadline (1 s: long enough that the ticks
 * counted can only come while the conversion runs), 0.6-1.9 s of CPU as the machine lets the
 * worker run. The rest of the tool's tests are in `fetchUrl.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Ref } from "effect"
import { makeFetchUrl } from "../../../../src/tools/ported/web/fetchUrl.js"
import { sendText } from "../../../helpers/httpServer.js"
import { fetchWith, serve } from "./fetchUrlHarness.js"

describe("fetch_url", () => {
  it.live("HTML that would stall the converter is stopped at the deadline; the process stays responsive", () =>
    Effect.gen(function*() {
      const depth = 150_000
      const server = yield* serve((_, response) =>
        sendText(response, 200, `<html><body>${"<div>".repeat(depth)}deep${"</div>".repeat(depth)}</body></html>`, "text/html")
      )
      const ticks = yield* Ref.make(0)
      const ticker = yield* Effect.forkChild(Effect.forever(Effect.andThen(Effect.sleep("20 millis"), Ref.update(ticks, (n) => n + 1))))
      const tool = makeFetchUrl({ htmlDeadline: "1 second" })
      const r = yield* fetchWith({ url: server.origin }, { tools: [tool] })
      yield* Fiber.interrupt(ticker)
      expect(r.error).toBe(`${server.origin}/: converting the page to text did not finish within 1s`)
      expect(r.durationMs).toBeLessThan(5_000)
      // the main thread kept running while the worker was busy
      expect(yield* Ref.get(ticks)).toBeGreaterThan(20)
    }))
})
