/**
 * Issue 47, item 2: input schemas that make ajv work for seconds. An enum of 40,000 strings
 * (written as 2 objects) took seconds to compile at bridge start; a recursive `anyOf` is
 * exponential in the depth of an argument that fails at the bottom; `uniqueItems` over
 * objects is quadratic; a 2020-12 schema made ajv compile that draft's meta-schemas at once.
 * Through a real bridged server, neither the bridge's start nor a call may hold the event loop
 * for 100 ms, and each tool is either simplified and working or answers with a clear refusal.
 *
 * Each measured thing is repeated when its run blocked past the bound (`measureRepeatedBlocking`:
 * on a loaded machine the event loop also waits for a core). A start is a new bridge each time;
 * the one-time work of the first (the meta-schemas) is checked on its own in listingLimits.test.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger, Runtime, Scope } from "effect"
import { ToolSystem } from "../../../src/services/ToolSystem.js"
import { compileArgumentsValidator } from "../../../src/tools/mcp/jsonSchema.js"
import { MAX_BLOCK_MS, measureRepeatedBlocking } from "../../helpers/loopDelay.js"
import { tempDir } from "../../helpers/tempDir.js"
import { bridged, nodeServer } from "./helpers.js"

/** `{ a: { a: ... 5 } }`, `levels` deep: every branch of the recursive anyOf fails only at the bottom. */
const failingAtTheBottom = (levels: number): unknown => {
  let value: unknown = 5
  for (let i = 0; i < levels; i++) value = { a: value }
  return value
}

// live clock: a real MCP server process (servers/*.mjs); the bridge's own timers run on the live clock (process.ts liveClock); the event loop's blocks are measured in real time
describe("hostile input schemas of a bridged server", () => {
  it.live("start without holding the event loop; each call is checked within the bound or refused plainly", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-hostile-schemas-")
      const logs: Array<string> = []
      const capture = Logger.layer([Logger.make(({ message }) => logs.push(String(message)))])
      const run = Effect.runPromiseWith(yield* Effect.context<Scope.Scope>())
      /** Runs `effect` (again when it blocked too long) and gives its value with the longest block it caused. */
      const blocking = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>, attempts?: number) =>
        Effect.promise(() => measureRepeatedBlocking(() => run(effect), attempts))
      // each start in a scope of its own, closed with the test's
      const layer = bridged(ws, { hostile: nodeServer("hostileSchemas.mjs", [], { requiresConfirmation: false }) })
      const startOnce = Effect.acquireRelease(Scope.make(), (scope, exit) => Scope.close(scope, exit)).pipe(
        Effect.flatMap((scope) => Layer.buildWithScope(layer, scope)),
        Effect.provide(capture)
      )
      // a start is long (a process, its listing) and shares the machine with other test files: five tries
      const start = yield* blocking(startOnce, 5)
      expect(start.maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
      const system = Context.get(start.value, ToolSystem)
      const call = (name: string, args: unknown) => blocking(system.execute(name, args))

      // the 40,000-member enum: only its type is checked here, the server checks the rest
      const member = yield* call("hostile__bigEnum", { color: "c39999" })
      expect(member.value).toMatchObject({ success: true, output: "bigEnum 18" })
      expect(member.maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
      expect(yield* system.execute("hostile__bigEnum", { color: 5 })).toMatchObject({ errorCode: "INVALID_ARGUMENTS" })
      expect(logs.some((line) => line.includes(`"bigEnum" is checked here only in part`) && line.includes("an enum of 40000 members")))
        .toBe(true)

      // the recursive anyOf, 21 levels failing at the bottom: refused within the work bound
      const deep = yield* call("hostile__recursive", { n: failingAtTheBottom(21) })
      expect(deep.value).toMatchObject({ success: false, errorCode: "INVALID_ARGUMENTS" })
      expect(deep.value.error).toContain("takes more than")
      expect(deep.maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
      // an argument that fits goes through
      expect(yield* system.execute("hostile__recursive", { n: { a: { a: {} } } })).toMatchObject({ success: true })

      // uniqueItems over 5,000 objects (12.5 million pairs): left to the server, the call goes
      // through at once. (20,000 were at times refused at a load of 8 on 2 cores: checking them
      // item by item took more than the 40 ms a validation may run, which says nothing of uniqueItems.)
      const items = Array.from({ length: 5_000 }, (_, i) => ({ k: i }))
      const unique = yield* call("hostile__unique", { items })
      expect(unique.value).toMatchObject({ success: true })
      expect(unique.maxBlockMs).toBeLessThan(MAX_BLOCK_MS)

      // the 2020-12 schema is checked as that draft says
      expect(yield* system.execute("hostile__dialect2020", { pair: ["a", 1] })).toMatchObject({ success: true, output: "dialect2020 16" })
      expect(yield* system.execute("hostile__dialect2020", { pair: [1, "a"] })).toMatchObject({ errorCode: "INVALID_ARGUMENTS" })
    }), 60_000)
})

describe("compileArgumentsValidator on hostile schemas (the raw-tool path)", () => {
  it("a schema whose $ref leads outside its own schemas is refused, not resolved", () => {
    const hidden = { type: "object", properties: { a: { $ref: "#/x-hidden" } }, "x-hidden": { anyOf: [{ $ref: "#/x-hidden" }] } }
    expect(() => compileArgumentsValidator(hidden)).toThrow(`its $ref "#/x-hidden" does not point at a schema of its own`)
  })

  it("a schema that refers to itself without going into the arguments is refused per call, not a crash", async () => {
    const loop = { type: "object", properties: { a: { $ref: "#/definitions/l" } }, definitions: { l: { allOf: [{ $ref: "#/definitions/l" }] } } }
    const { value, maxBlockMs } = await measureRepeatedBlocking(async () => compileArgumentsValidator(loop).validate({ a: 1 }))
    expect(value?.[0]?.message).toMatch(/takes more than|refers to itself too deeply/)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  })
})
