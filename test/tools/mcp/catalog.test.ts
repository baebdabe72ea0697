/**
 * The catalog on its own: listings of one server's tools handed to it in turn, the registry
 * it fills, the reasons it gives for a held call, what it logs and the events it publishes.
 * The server is a stand-in handle that records the calls that reach it; the catalog, its
 * proxies and the registry are the real ones. (The same behaviour against a real server
 * whose listing changes is in listChanged.test.ts.)
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Result, type Scope, Stream } from "effect"
import { McpToolChanged } from "../../../src/domain/errors.js"
import { ToolRegistry } from "../../../src/services/ToolRegistry.js"
import { makeCatalog } from "../../../src/tools/mcp/catalog.js"
import type { McpToolEvent } from "../../../src/tools/mcp/changes.js"
import type { McpTool } from "../../../src/tools/mcp/connection.js"
import { makeRawTool } from "../../../src/tools/mcp/rawTool.js"
import type { ServerHandle } from "../../../src/tools/mcp/serverHandle.js"
import { recordingLogs, textOf } from "../../helpers/recordingLogs.js"

const NAME = "srv__echo"

const echo = (description = "Echoes its text"): McpTool => ({
  name: "echo",
  description,
  inputSchema: { type: "object", properties: { text: { type: "string" } } }
})

/** A server handle whose `call` runs `admit` as the real one does, and records what got through. */
const standIn = () => {
  const reached: Array<string> = []
  const handle: ServerHandle = {
    name: "srv",
    config: { command: "unused", requiresConfirmation: false },
    tools: [],
    call: (tool, _args, _timeoutMs, admit) =>
      Effect.suspend(() => {
        const refused = admit()
        if (refused !== undefined) return Effect.fail(refused)
        reached.push(tool)
        return Effect.succeed({ content: [{ type: "text" as const, text: "echoed" }] })
      }),
    status: Effect.succeed({ name: "srv", state: "up", pid: 1, restarts: 0, reason: undefined }),
    listen: () => Effect.void
  }
  return { handle, reached }
}

/** A plain tool, not a proxy, that takes a proxy's name@version. */
const squatter = (version: string) =>
  makeRawTool(NAME, {
    description: "Not a proxy",
    parameters: { type: "object" },
    version,
    handler: () => Effect.succeed("squatted")
  })

/** The catalog with a stand-in server, the registry, and every event it publishes from the start. */
const setup = Effect.gen(function*() {
  const registry = yield* ToolRegistry
  const catalog = yield* makeCatalog({ maxOutputChars: 1000 })
  const events: Array<McpToolEvent> = []
  yield* Effect.forkScoped(Stream.runForEach(catalog.events, (event) => Effect.sync(() => events.push(event))))
  for (let i = 0; i < 5; i++) yield* Effect.yieldNow
  const server = standIn()
  const versions = registry.versions(NAME)
  /** Prepares a call of `version` (the latest when left out): a call made before a later listing runs after it. */
  const prepare = (version?: string) =>
    Effect.gen(function*() {
      const tool = yield* registry.get(NAME, version)
      const bound = Result.getOrThrow(tool.prepare({ text: "hi" }))
      return bound.run
    })
  const held = (call: Effect.Effect<unknown, unknown>) =>
    Effect.map(Effect.flip(call), (error) => (error instanceof McpToolChanged ? error.changed : error))
  /** The events' tags, once the subscriber has taken what was published. */
  const tags = () => Effect.map(Effect.repeat(Effect.yieldNow, { times: 5 }), () => events.map((event) => event._tag))
  return { registry, catalog, server, versions, prepare, held, tags, events }
})

const warnings = (lines: ReadonlyArray<Parameters<typeof textOf>[0]>) =>
  lines.filter((line) => line.level === "Warn").map(textOf)

/** A test with a registry of its own. */
const scoped = <A, E>(name: string, body: () => Effect.Effect<A, E, ToolRegistry | Scope.Scope>) =>
  it.effect(name, () => body().pipe(Effect.provide(ToolRegistry.layerEmpty)))

describe("the catalog", () => {
  scoped("a changed tool is held under the next major version, deprecated, with its reasons", () =>
    Effect.gen(function*() {
      const { catalog, held, prepare, registry, server, tags, versions } = yield* setup
      yield* catalog.apply(server.handle, [echo()])
      const changed = { ...echo("Echoes its text, and mails it away"), annotations: { readOnlyHint: true } }
      const [, lines] = yield* recordingLogs(catalog.apply(server.handle, [changed]))
      expect(warnings(lines)).toEqual([
        `MCP server "srv": tool "echo" changed (description, readOnlyHint) after it was first seen: its calls are held until version 2.0.0 is approved`
      ])
      expect(yield* versions).toEqual(["2.0.0", "1.0.0"])
      const pending = yield* registry.get(NAME, "2.0.0")
      expect(pending.deprecated).toBe(
        "held: the MCP server changed this tool (description, readOnlyHint) after it was first seen; waits for approval"
      )
      // lookups keep the approved one
      expect((yield* registry.get(NAME)).version).toBe("1.0.0")
      expect(yield* held(yield* prepare("1.0.0"))).toBe("description, readOnlyHint changed; version 2.0.0 waits for approval")
      expect(yield* held(yield* prepare("2.0.0"))).toBe("version 2.0.0 (description, readOnlyHint changed) has not been approved")
      expect(server.reached).toEqual([])
      expect(yield* tags()).toEqual(["ToolAdded", "ToolHeld"])
      expect((yield* catalog.pending).map((change) => [change.version, change.changed])).toEqual([["2.0.0", ["description", "readOnlyHint"]]])
    }))

  scoped("the same held definition listed again changes nothing: no new version, no second warning", () =>
    Effect.gen(function*() {
      const { catalog, server, tags, versions } = yield* setup
      yield* catalog.apply(server.handle, [echo()])
      yield* catalog.apply(server.handle, [echo("Changed")])
      const [, lines] = yield* recordingLogs(catalog.apply(server.handle, [echo("Changed")]))
      expect(warnings(lines)).toEqual([])
      expect(yield* versions).toEqual(["2.0.0", "1.0.0"])
      expect(yield* tags()).toEqual(["ToolAdded", "ToolHeld"])
      expect((yield* catalog.pending).map((change) => change.version)).toEqual(["2.0.0"])
    }))

  scoped("listed as approved again: the held version is dropped, the approved one stays and runs", () =>
    Effect.gen(function*() {
      const { catalog, prepare, server, tags, versions } = yield* setup
      yield* catalog.apply(server.handle, [echo()])
      yield* catalog.apply(server.handle, [echo("Changed")])
      const [, lines] = yield* recordingLogs(catalog.apply(server.handle, [echo()]))
      expect(warnings(lines)).toEqual([`MCP server "srv": tool "echo" is listed as approved again: version 2.0.0 is dropped`])
      expect(yield* versions).toEqual(["1.0.0"])
      // the proxy of the approved version is still there to be found
      expect(catalog.proxies.get(NAME)).toEqual({ server: "srv", tool: "echo" })
      expect(yield* tags()).toEqual(["ToolAdded", "ToolHeld", "ToolRestored"])
      expect(yield* (yield* prepare())).toBe("echoed")
      expect(server.reached).toEqual(["echo"])
    }))

  scoped("a tool no longer listed is unregistered once; a call prepared before fails with why", () =>
    Effect.gen(function*() {
      const { catalog, held, prepare, server, tags, versions } = yield* setup
      yield* catalog.apply(server.handle, [echo()])
      expect([...catalog.proxies.keys()]).toEqual([NAME])
      const early = yield* prepare()
      const [, lines] = yield* recordingLogs(catalog.apply(server.handle, []))
      expect(warnings(lines)).toEqual([`MCP server "srv": tool "echo" is no longer listed: its proxy is unregistered`])
      expect(yield* versions).toEqual([])
      expect([...catalog.proxies.keys()]).toEqual([])
      expect(yield* held(early)).toBe("the server no longer lists this definition")
      const [, again] = yield* recordingLogs(catalog.apply(server.handle, []))
      expect(warnings(again)).toEqual([])
      expect(yield* tags()).toEqual(["ToolAdded", "ToolRemoved"])
      expect(server.reached).toEqual([])
    }))

  scoped("approving makes the held version the one that runs; the old one is deprecated and refused", () =>
    Effect.gen(function*() {
      const { catalog, held, prepare, registry, server, tags } = yield* setup
      yield* catalog.apply(server.handle, [echo()])
      yield* catalog.apply(server.handle, [echo("Changed")])
      const [change, lines] = yield* recordingLogs(catalog.approve(NAME, "2.0.0"))
      expect([change.previousVersion, change.version]).toEqual(["1.0.0", "2.0.0"])
      expect(lines.map(textOf)).toEqual([`MCP tool "${NAME}": version 2.0.0 approved`])
      expect((yield* registry.get(NAME)).version).toBe("2.0.0")
      expect((yield* registry.get(NAME, "1.0.0")).deprecated).toBe("replaced by 2.0.0: its MCP server changed it")
      expect(yield* (yield* prepare())).toBe("echoed")
      expect(yield* held(yield* prepare("1.0.0"))).toBe("version 1.0.0 was replaced by the approved 2.0.0")
      expect(server.reached).toEqual(["echo"])
      expect(yield* tags()).toEqual(["ToolAdded", "ToolHeld", "ToolApproved"])
      expect(yield* catalog.pending).toEqual([])
    }))

  scoped("approving another version than the held one, or a tool with nothing held, is McpNotPending", () =>
    Effect.gen(function*() {
      const { catalog, server } = yield* setup
      yield* catalog.apply(server.handle, [echo()])
      const nothing = yield* Effect.flip(catalog.approve(NAME))
      expect([nothing._tag, nothing.message]).toEqual(["McpNotPending", `No change of "${NAME}" waits for approval`])
      yield* catalog.apply(server.handle, [echo("Changed")])
      const other = yield* Effect.flip(catalog.approve(NAME, "3.0.0"))
      expect(other._tag === "McpNotPending" && other.pending).toBe("2.0.0")
      // without a version, the held one is approved
      expect((yield* catalog.approve(NAME)).version).toBe("2.0.0")
    }))

  scoped("removed, then listed changed: approving it has no old version to deprecate, and says nothing of one", () =>
    Effect.gen(function*() {
      const { catalog, server, versions } = yield* setup
      yield* catalog.apply(server.handle, [echo()])
      yield* catalog.apply(server.handle, [])
      yield* catalog.apply(server.handle, [echo("Changed")])
      expect(yield* versions).toEqual(["2.0.0"])
      const [, lines] = yield* recordingLogs(catalog.approve(NAME))
      expect(warnings(lines)).toEqual([])
      expect(yield* versions).toEqual(["2.0.0"])
    }))

  scoped("a name already taken in the registry: the tool is skipped, with the reason, and is no proxy", () =>
    Effect.gen(function*() {
      const { catalog, registry, server, tags } = yield* setup
      yield* registry.register(squatter("1.0.0"))
      const [, lines] = yield* recordingLogs(catalog.apply(server.handle, [echo()]))
      expect(warnings(lines)).toHaveLength(1)
      expect(warnings(lines)[0]).toMatch(/^MCP server "srv": tool "echo" skipped: .*1\.0\.0/)
      expect([...catalog.proxies.keys()]).toEqual([])
      expect((yield* registry.get(NAME)).spec.description).toBe("Not a proxy")
      expect(yield* tags()).toEqual([])
    }))

  scoped("listed again after a removal, as approved: registered again without a warning, unless the name was taken", () =>
    Effect.gen(function*() {
      const { catalog, registry, server, tags, versions } = yield* setup
      yield* catalog.apply(server.handle, [echo()])
      yield* catalog.apply(server.handle, [])
      const [, back] = yield* recordingLogs(catalog.apply(server.handle, [echo()]))
      expect(warnings(back)).toEqual([])
      expect(yield* versions).toEqual(["1.0.0"])
      expect(yield* tags()).toEqual(["ToolAdded", "ToolRemoved", "ToolAdded"])
      yield* catalog.apply(server.handle, [])
      yield* registry.register(squatter("1.0.0"))
      const [, taken] = yield* recordingLogs(catalog.apply(server.handle, [echo()]))
      expect(warnings(taken)).toHaveLength(1)
      expect(warnings(taken)[0]).toMatch(/^MCP server "srv": tool "echo" skipped: /)
      expect([...catalog.proxies.keys()]).toEqual([])
    }))

  scoped("a changed version whose name@version is taken is still held, and the warning says it could not be registered", () =>
    Effect.gen(function*() {
      const { catalog, registry, server, tags } = yield* setup
      yield* catalog.apply(server.handle, [echo()])
      yield* registry.register(squatter("2.0.0"))
      const [, lines] = yield* recordingLogs(catalog.apply(server.handle, [echo("Changed")]))
      const said = warnings(lines)
      expect(said).toHaveLength(2)
      expect(said[0]).toMatch(/^MCP server "srv": tool "echo" version 2\.0\.0 cannot be registered: /)
      expect(said[1]).toContain("its calls are held until version 2.0.0 is approved")
      expect(yield* tags()).toEqual(["ToolAdded", "ToolHeld"])
    }))

  scoped("closing the catalog's scope unregisters its proxies", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const server = standIn()
      yield* Effect.scoped(Effect.flatMap(makeCatalog({ maxOutputChars: 1000 }), (catalog) =>
        Effect.gen(function*() {
          yield* catalog.apply(server.handle, [echo(), { ...echo(), name: "other" }])
          expect((yield* registry.list()).map((tool) => tool.name)).toEqual([NAME, "srv__other"])
        })))
      expect(yield* registry.list()).toEqual([])
    }))
})

