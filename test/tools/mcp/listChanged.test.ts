/**
 * `notifications/tools/list_changed` and the rug-pull hold, against a server whose tool list
 * changes on request (servers/changing.mjs): new tools registered, removed ones no longer
 * callable, changed ones held (`MCP_TOOL_CHANGED`, nothing sent) until approved, the old and
 * new kept as versions, a server that goes back trusted again, and a server that comes back
 * changed after a restart held before the first call reaches it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Option, Stream } from "effect"
import { McpNotPending } from "../../../src/tools/mcp/changes.js"
import { type Logged, recordingLogsWith, textOf } from "../../helpers/recordingLogs.js"
import { eventually } from "./helpers.js"
import { setup } from "./listChangedHarness.js"

const WEATHER = "changing__weather"

/** Waits until `effect` gives a value `check` accepts (a few seconds at most). */
const until = <A>(effect: Effect.Effect<A>, check: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 150; i++) {
      const value = yield* effect
      if (check(value)) return value
      yield* Effect.sleep("20 millis")
    }
    return yield* effect
  })

// live clock, every describe of this file: a real server process; the bridge reads a listing at most every
// 200 ms on the live clock (serverHandle.ts), which the flood test counts in real time (at most 9 in 1.5 s)
describe("list_changed", () => {

  it.live("registers new tools, unregisters removed ones, and registers them again when they come back", () =>
    Effect.gen(function*() {
      const { bridge, called, control, listed, system } = yield* setup()
      expect(yield* listed).toEqual(["changing__control", "changing__stable", "changing__weather"])
      const events = yield* bridge.events.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
      yield* Effect.sleep("50 millis")
      yield* control(["add", "remove"])
      const seen = Array.from(yield* Fiber.join(events).pipe(Effect.timeout("5 seconds")))
      expect(seen.map((e) => e._tag).sort()).toEqual(["ToolAdded", "ToolRemoved"])
      expect(seen).toContainEqual(
        expect.objectContaining({ _tag: "ToolAdded", name: "changing__extra", server: "changing", tool: "extra", version: "1.0.0" })
      )
      expect(yield* listed).toEqual(["changing__control", "changing__extra", "changing__weather"])
      expect(yield* system.execute("changing__extra", {})).toMatchObject({ success: true, output: "extra here" })
      // the removed tool is gone: not callable, not mapped
      const gone = yield* system.execute("changing__stable", { text: "x" })
      expect(gone).toMatchObject({ success: false, errorCode: "TOOL_NOT_FOUND" })
      expect(bridge.target("changing__stable")).toEqual(Option.none())
      expect(called()).not.toContain("stable")
      // it comes back as it was approved
      yield* control(["restore"])
      expect(yield* until(listed, (names) => names.includes("changing__stable"))).toContain("changing__stable")
      const back = yield* system.execute("changing__stable", { text: "back" })
      expect(back).toMatchObject({ success: true, output: "back", version: "1.0.0" })
      expect(yield* bridge.pending).toEqual([])
    }))
})

describe("listings after a change", () => {
  it.live("a tool that gains an output schema (no hold: not part of its definition) has its answers checked against it", () =>
    Effect.gen(function*() {
      const { control, system } = yield* setup()
      expect(yield* system.execute("changing__stable", { text: "before" })).toMatchObject({ success: true, output: "before" })
      yield* control(["output"])
      // once the new listing is taken, the answer without structured content is refused
      const after = yield* until(
        system.execute("changing__stable", { text: "after" }),
        (r) => !r.success
      )
      expect(after).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(after.error).toContain("has an output schema but did not return structured content")
    }))

  it.live("a listing that fails after list_changed is logged; the proxies stay as they were", () =>
    Effect.gen(function*() {
      const warnings = (lines: ReadonlyArray<Logged>) => lines.filter((line) => line.level === "Warn").map(textOf)
      const [seen, lines] = yield* recordingLogsWith((lines) =>
        Effect.gen(function*() {
          const { control, listed, system } = yield* setup()
          yield* control(["breaklist", "add"])
          const warned = yield* until(Effect.sync(() => warnings(lines).length), (n) => n > 0)
          return { warned, names: yield* listed, call: yield* system.execute("changing__stable", { text: "still" }) }
        })
      )
      expect(seen.warned).toBe(1)
      expect(warnings(lines)).toHaveLength(1)
      expect(warnings(lines)[0]).toMatch(
        /^MCP server "changing": listing its changed tools failed \(.*the listing broke on purpose.*\); its proxies stay as they were$/
      )
      expect(seen.names).toEqual(["changing__control", "changing__stable", "changing__weather"])
      expect(seen.call).toMatchObject({ success: true, output: "still" })
    }))
})

describe("the rug-pull hold", () => {
  it.live("a changed description is held until approved; the registry keeps both versions", () =>
    Effect.gen(function*() {
      const { bridge, called, control, registry, system } = yield* setup()
      expect(yield* system.execute(WEATHER, { city: "Oslo" })).toMatchObject({ success: true, output: "sunny in Oslo" })
      yield* control(["rug"])
      const [change] = yield* until(bridge.pending, (p) => p.length > 0)
      expect(change).toMatchObject({
        name: WEATHER,
        server: "changing",
        tool: "weather",
        previousVersion: "1.0.0",
        version: "2.0.0",
        changed: ["description"],
        before: { description: "Tells the weather" }
      })
      expect(change?.after.description).toContain("id_rsa")

      // every call is refused, under any version, and none reaches the server
      const held = yield* system.execute(WEATHER, { city: "Oslo" })
      expect(held).toMatchObject({ success: false, errorCode: "MCP_TOOL_CHANGED", version: "1.0.0", confirmed: true })
      expect(held.error).toBe(
        `The MCP server "changing" changed its tool "weather" after it was first seen: ` +
          "description changed; version 2.0.0 waits for approval"
      )
      const heldNew = yield* system.execute(WEATHER, { city: "Oslo" }, { versionRange: "2.0.0" })
      expect(heldNew).toMatchObject({ errorCode: "MCP_TOOL_CHANGED", version: "2.0.0" })
      expect(heldNew.error).toContain("version 2.0.0 (description changed) has not been approved")
      expect(called().filter((c) => c === "weather")).toHaveLength(1)

      // both versions are registered; listings and lookups show the approved one
      expect(yield* registry.versions(WEATHER)).toEqual(["2.0.0", "1.0.0"])
      expect((yield* registry.get(WEATHER)).spec.description).toBe("Tells the weather")
      const specs = yield* registry.specs({ tags: ["mcp"] })
      expect(specs.find((s) => s.name === WEATHER)?.description).toBe("Tells the weather")
      const newer = yield* registry.get(WEATHER, "2.0.0")
      expect(newer.spec.description).toContain("id_rsa")
      expect(newer.deprecated).toContain("held")

      // approval names the version it approves: a stale one is refused
      const stale = yield* Effect.flip(bridge.approve(WEATHER, "9.0.0"))
      expect(stale).toBeInstanceOf(McpNotPending)
      expect(stale).toMatchObject({ name: WEATHER, version: "9.0.0", pending: "2.0.0" })
      const approved = yield* bridge.approve(WEATHER, "2.0.0")
      expect(approved.version).toBe("2.0.0")
      expect(yield* bridge.pending).toEqual([])

      const after = yield* system.execute(WEATHER, { city: "Oslo" })
      expect(after).toMatchObject({ success: true, version: "2.0.0", output: "sunny in Oslo (and thanks for the key)" })
      expect((yield* registry.get(WEATHER)).spec.description).toContain("id_rsa")
      // the old version stays, deprecated and refused
      const old = yield* system.execute(WEATHER, { city: "Oslo" }, { versionRange: "1.0.0" })
      expect(old).toMatchObject({ errorCode: "MCP_TOOL_CHANGED" })
      expect(old.error).toContain("version 1.0.0 was replaced by the approved 2.0.0")
      expect((yield* registry.get(WEATHER, "1.0.0")).deprecated).toContain("replaced by 2.0.0")
      const nothing = yield* Effect.flip(bridge.approve(WEATHER))
      expect(nothing).toMatchObject({ _tag: "McpNotPending", pending: undefined })
    }))

  it.live("a second change replaces the held one; a server that goes back is trusted again", () =>
    Effect.gen(function*() {
      const { bridge, called, control, registry, system } = yield* setup()
      const events = yield* bridge.events.pipe(Stream.take(3), Stream.runCollect, Effect.forkChild)
      yield* Effect.sleep("50 millis")
      yield* control(["schema"])
      const [first] = yield* until(bridge.pending, (p) => p.length > 0)
      expect(first).toMatchObject({ version: "2.0.0", changed: ["inputSchema"] })
      yield* control(["readonly"])
      const [second] = yield* until(bridge.pending, (p) => p[0]?.version === "3.0.0")
      expect(second).toMatchObject({ version: "3.0.0", changed: ["inputSchema", "readOnlyHint"] })
      expect(second?.after.inputSchema.properties).toHaveProperty("days")
      expect(yield* registry.versions(WEATHER)).toEqual(["3.0.0", "1.0.0"])
      // the version someone looked at is no longer the one held
      expect(yield* Effect.flip(bridge.approve(WEATHER, "2.0.0"))).toMatchObject({ pending: "3.0.0" })
      expect((yield* system.execute(WEATHER, { city: "Rome" })).errorCode).toBe("MCP_TOOL_CHANGED")

      yield* control(["revert"])
      yield* until(bridge.pending, (p) => p.length === 0)
      expect(yield* bridge.pending).toEqual([])
      expect(yield* registry.versions(WEATHER)).toEqual(["1.0.0"])
      expect(yield* system.execute(WEATHER, { city: "Rome" })).toMatchObject({ success: true, output: "sunny in Rome" })
      const seen = Array.from(yield* Fiber.join(events).pipe(Effect.timeout("5 seconds")))
      expect(seen.map((e) => e._tag)).toEqual(["ToolHeld", "ToolHeld", "ToolRestored"])
      expect(called().filter((c) => c === "weather")).toHaveLength(1)
    }))

  it.live("a server that comes back changed after a crash is held before the first call reaches it", () =>
    Effect.gen(function*() {
      const { bridge, called, control, system } = yield* setup(["--state", "{ws}/state.json"])
      expect((yield* system.execute(WEATHER, { city: "Oslo" })).success).toBe(true)
      // the server changes without saying so, and exits
      yield* control(["rug", "crash"], false)
      const status = yield* until(bridge.servers, (s) => s[0]?.state === "crashed")
      expect(status[0]?.state).toBe("crashed")
      const r = yield* system.execute(WEATHER, { city: "Oslo" })
      expect(r).toMatchObject({ success: false, errorCode: "MCP_TOOL_CHANGED" })
      expect((yield* bridge.servers)[0]).toMatchObject({ state: "up", restarts: 1 })
      expect((yield* bridge.pending).map((c) => [c.version, c.changed])).toEqual([["2.0.0", ["description"]]])
      expect(called().filter((c) => c === "weather")).toHaveLength(1)
      // the other tools of the restarted server run
      expect(yield* system.execute("changing__stable", { text: "ok" })).toMatchObject({ success: true, output: "ok" })
      expect(yield* eventually(() => called().includes("stable"))).toBe(true)
    }))
})
