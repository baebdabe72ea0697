/**
 * The tests of `listChanged.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * `notifications/tools/list_changed` and the rug-pull hold, against a server whose tool list
 * changes on request (servers/changing.mjs): new tools registered, removed ones no longer
 * callable, changed ones held (`MCP_TOOL_CHANGED`, nothing sent) until approved, the old and
 * new kept as versions, a server that goes back trusted again, and a server that comes back
 * changed after a restart held before the first call reaches it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { setup } from "./listChangedHarness.js"

// live clock, every describe of this file: a real server process; the bridge reads a listing at most every
// 200 ms on the live clock (serverHandle.ts), which the flood test counts in real time (at most 9 in 1.5 s)
describe("list_changed", () => {
  it.live("a flood of notifications is read as a few listings: at most one every 200 ms", () =>
    Effect.gen(function*() {
      const { system } = yield* setup()
      const count = Effect.map(
        system.execute("changing__control", { actions: ["count"], notify: false }),
        (r) => Number(String(r.output).replace("listings ", ""))
      )
      const before = yield* count
      // a notification every millisecond for one second
      yield* system.execute("changing__control", { actions: ["flood"], notify: false })
      yield* Effect.sleep("1500 millis")
      const during = (yield* count) - before
      expect(during).toBeGreaterThanOrEqual(1)
      // 1.5 s at one listing every 200 ms at most, and the first at once
      expect(during).toBeLessThanOrEqual(9)
    }), 20_000)
})
