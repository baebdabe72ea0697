/**
 * SEP-2243 in the bridge (`paramHeaders.ts`): a 2026-07-28 `url` entry's tools with
 * `x-mcp-header` declarations have their arguments mirrored into `Mcp-Param-*` headers (encoded
 * as the spec has it), a tool whose declaration is invalid is left out (the others stay), and
 * a hostile server's declarations are bounded. A stdio server, and the same HTTP server spoken
 * to in the 2025 era, are not touched. Against a raw HTTP server on 127.0.0.1 that records each
 * call's headers, and an SDK v2 `McpServer` (which refuses a call whose headers do not match).
 */
import { describe, expect, it } from "@effect/vitest"
import { createMcpHandler, fromJsonSchema, type JsonSchemaType, McpServer } from "@modelcontextprotocol/server"
import { Effect, Result } from "effect"
import type * as http from "node:http"
import {
  encodeHeaderValue,
  MAX_PARAM_HEADER_BYTES,
  paramHeadersOf,
  scanParamHeaders
} from "../../../src/tools/mcp/paramHeaders.js"
import { recordingLogsWith, textOf } from "../../helpers/recordingLogs.js"
import { tempDir } from "../../helpers/tempDir.js"
import { eventually, nodeServer, openBridged } from "./helpers.js"
import { field, listenMcp, listenRaw } from "./httpServers.js"

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "object", properties, ...extra })
const str = (header?: string) => ({ type: "string", ...(header === undefined ? {} : { "x-mcp-header": header }) })

/** `schema` with an `x-mcp-header` (a keyword the SDK's JSON Schema type does not name). */
const mirrored = (schema: JsonSchemaType, header: string): JsonSchemaType => Object.assign({ "x-mcp-header": header }, schema)

/** The tools of the test servers: two valid, the others each invalid in one way. */
const tools = [
  {
    name: "mirror",
    inputSchema: obj({
      region: str("Region"),
      priority: { type: "integer", "x-mcp-header": "Priority" },
      verbose: { type: "boolean", "x-mcp-header": "Verbose" },
      greeting: str("Greeting"),
      padded: str("Padded"),
      place: obj({ zone: str("Zone") }),
      query: str(),
      score: { type: "number" }
    }, { required: ["region"] })
  },
  { name: "plain", inputSchema: obj({ text: str() }) },
  // its server answers every call with a HeaderMismatch (as one whose declarations changed would)
  { name: "refused", inputSchema: obj({ region: str("Region") }) },
  { name: "badName", inputSchema: obj({ value: str("My Region") }) },
  { name: "badType", inputSchema: obj({ score: { type: "number", "x-mcp-header": "Score" } }) },
  { name: "dupe", inputSchema: obj({ a: str("Region"), b: str("region") }) },
  { name: "underItems", inputSchema: obj({ list: { type: "array", items: obj({ x: str("X") }) } }) },
  { name: "longName", inputSchema: obj({ value: str("A".repeat(100_000)) }) },
  {
    name: "flood",
    inputSchema: obj(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, str(`H${i}`)])))
  }
]
const invalid = ["badName", "badType", "dupe", "underItems", "longName", "flood"]

/** One `tools/call` as the raw server saw it. */
interface SeenCall {
  readonly tool: unknown
  readonly headers: http.IncomingHttpHeaders
}

/**
 * A raw MCP server over HTTP speaking both eras (`initialize` for 2025-11-25, `server/discover`
 * and the `_meta` envelope for 2026-07-28), listing `tools` and recording every call's headers.
 */
const rawServer = Effect.gen(function*() {
  const calls: Array<SeenCall> = []
  let lists = 0
  const { url } = yield* listenRaw(({ id, json, message, method, req, res }) => {
    const modern = field(field(field(message, "params"), "_meta"), "io.modelcontextprotocol/protocolVersion") !== undefined
    const complete = modern ? { resultType: "complete" } : {}
    if (method === "initialize") {
      return json({ protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "raw", version: "1" } })
    }
    if (method === "server/discover") {
      return json({
        ...complete,
        ttlMs: 0,
        cacheScope: "private",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        serverInfo: { name: "raw", version: "1" }
      })
    }
    if (method === "tools/list") lists += 1
    if (method === "tools/list") return json({ ...complete, ...(modern ? { ttlMs: 0, cacheScope: "private" } : {}), tools })
    if (method === "tools/call") {
      const tool = field(field(message, "params"), "name")
      calls.push({ tool, headers: req.headers })
      if (tool === "refused") {
        res.writeHead(400, { "content-type": "application/json" })
        const error = { code: -32020, message: "Header mismatch: Mcp-Param-Zone header missing" }
        return void res.end(JSON.stringify({ jsonrpc: "2.0", id, error }))
      }
      return json({ ...complete, content: [{ type: "text", text: "ok" }] })
    }
    res.writeHead(404, { "content-type": "application/json" })
    res.end(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } }))
  })
  return { url, calls, lists: () => lists }
})

/** The `mcp-param-*` headers of a recorded call. */
const paramHeadersSeen = (call: SeenCall | undefined) =>
  Object.fromEntries(Object.entries(call?.headers ?? {}).filter(([name]) => name.startsWith("mcp-param-")))

describe("scanParamHeaders", () => {
  it("takes the declarations on properties reached through `properties`, nested ones included, in order", () => {
    const scan = scanParamHeaders(tools[0]?.inputSchema)
    expect(scan).toMatchObject({ _tag: "Valid" })
    expect(scan._tag === "Valid" ? scan.headers : []).toEqual([
      { path: ["region"], name: "Region", type: "string" },
      { path: ["priority"], name: "Priority", type: "integer" },
      { path: ["verbose"], name: "Verbose", type: "boolean" },
      { path: ["greeting"], name: "Greeting", type: "string" },
      { path: ["padded"], name: "Padded", type: "string" },
      { path: ["place", "zone"], name: "Zone", type: "string" }
    ])
    expect(scanParamHeaders({ type: "object" })).toMatchObject({ _tag: "Valid", headers: [] })
  })

  it("refuses each declaration the spec forbids, saying why", () => {
    const reason = (schema: unknown) => {
      const scan = scanParamHeaders(schema)
      return scan._tag === "Invalid" ? scan.reason : "valid"
    }
    expect(reason(obj({ v: str("") }))).toContain("is not a non-empty string")
    expect(reason(obj({ v: { type: "string", "x-mcp-header": 7 } }))).toContain("is not a non-empty string")
    expect(reason(obj({ v: str("My Region") }))).toContain(`"My Region" at "v" is not an HTTP token`)
    expect(reason(obj({ v: str("Region:Primary") }))).toContain("is not an HTTP token")
    expect(reason(obj({ v: str("Région") }))).toContain(`"R\\u00e9gion" at "v" is not an HTTP token`)
    expect(reason(obj({ v: str("Region\t1") }))).toContain(`"Region\\u00091"`)
    for (const type of ["number", "object", "array", "null"]) {
      expect(reason(obj({ v: { type, "x-mcp-header": "V" } }))).toContain(`of type "${type}" (only string, integer or boolean)`)
    }
    expect(reason(obj({ v: { type: ["string", "null"], "x-mcp-header": "V" } }))).toContain("only string, integer or boolean")
    expect(reason(obj({ a: str("Region"), b: str("Region") }))).toContain("is declared twice")
    expect(reason(obj({ a: str("MyField"), b: str("myfield") }))).toContain(`"myfield" is declared twice (also as "MyField"`)
    expect(reason({ type: "string", "x-mcp-header": "Root" })).toContain("at the schema's root is not on a property reached")
    for (const under of [
      { items: obj({ x: str("X") }) },
      { oneOf: [obj({ x: str("X") })] },
      { additionalProperties: str("X") },
      { $defs: { d: str("X") } },
      { if: obj({ x: str("X") }) },
      { patternProperties: { "^a": str("X") } }
    ]) {
      expect(reason({ type: "object", ...under })).toContain(`not on a property reached from the root through "properties" alone`)
    }
  })

  it("a hostile schema is bounded: 10,000 declarations, a 100,000-character name, 200,000 properties, 10,000 levels", () => {
    /** The scan's reason, and how long the scan took (ms). */
    const timed = (schema: unknown) => {
      const started = performance.now()
      const scan = scanParamHeaders(schema)
      return [scan._tag === "Invalid" ? scan.reason : "valid", performance.now() - started] as const
    }
    const flood = timed(tools.find((t) => t.name === "flood")?.inputSchema)
    expect(flood[0]).toContain("declares more than 64 x-mcp-header parameters")
    expect(timed(obj({ v: str("A".repeat(100_000)) }))[0]).toContain("is longer than 128 characters")
    // a listing is at most 10 MB: 200,000 properties fit in it
    const wide: Record<string, unknown> = {}
    for (let i = 0; i < 200_000; i++) wide[`p${i}`] = i % 2 === 0 ? { type: "string" } : 0
    const many = timed(obj(wide))
    expect(many[0]).toContain("more than 20000 schemas")
    let deep: Record<string, unknown> = str("Deep")
    for (let i = 0; i < 10_000; i++) deep = obj({ d: deep })
    const nested = timed(deep)
    expect(nested[0]).toContain("nested deeper than 64")
    // no walk past the bounds: linear in what is listed (the 200,000 keys are enumerated once, as
    // JSON.parse made them: 60-100 ms on a loaded 2-vCPU machine; the others a few ms). Loose, for loaded machines.
    for (const [, ms] of [flood, many, nested]) expect(ms).toBeLessThan(500)
  })
})

describe("encodeHeaderValue", () => {
  it("passes plain visible ASCII as it is, and the spec's examples as the spec encodes them", () => {
    expect(encodeHeaderValue("us-west1")).toBe("us-west1")
    expect(encodeHeaderValue("us west 1")).toBe("us west 1")
    expect(encodeHeaderValue("Hello, 世界")).toBe("=?base64?SGVsbG8sIOS4lueVjA==?=")
    expect(encodeHeaderValue(" padded ")).toBe("=?base64?IHBhZGRlZCA=?=")
    expect(encodeHeaderValue("line1\nline2")).toBe("=?base64?bGluZTEKbGluZTI=?=")
    expect(encodeHeaderValue("=?base64?literal?=")).toBe("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")
    expect(encodeHeaderValue("\tindented")).toBe(`=?base64?${Buffer.from("\tindented").toString("base64")}?=`)
    expect(encodeHeaderValue("")).toBe("=?base64??=")
    expect(encodeHeaderValue("a\r\nX-Injected: 1")).toMatch(/^=\?base64\?[A-Za-z0-9+/=]+\?=$/)
  })
})

describe("paramHeadersOf", () => {
  const scan = scanParamHeaders(tools[0]?.inputSchema)
  const declared = scan._tag === "Valid" ? scan.headers : []

  it("mirrors each argument present, as its type's text, and omits null and absent ones", () => {
    const made = paramHeadersOf(declared, { region: "us-west1", priority: -7, verbose: null, greeting: "Hello, 世界", place: { zone: "b" }, query: "SELECT 1" })
    expect(made).toEqual(Result.succeed({
      "Mcp-Param-Region": "us-west1",
      "Mcp-Param-Priority": "-7",
      "Mcp-Param-Greeting": "=?base64?SGVsbG8sIOS4lueVjA==?=",
      "Mcp-Param-Zone": "b"
    }))
    expect(paramHeadersOf(declared, { verbose: false })).toEqual(Result.succeed({ "Mcp-Param-Verbose": "false" }))
    // only own properties: an inherited `toString` or `__proto__` is no argument
    const proto = paramHeadersOf([{ path: ["toString"], name: "T", type: "string" }, { path: ["__proto__"], name: "P", type: "string" }], {})
    expect(proto).toEqual(Result.succeed({}))
  })

  it("fails a call whose argument is not of its declared type, or whose headers would pass the bound", () => {
    const started = performance.now()
    expect(paramHeadersOf(declared, { priority: 2 ** 60 })).toEqual(Result.fail(expect.stringContaining(`"priority" (mirrored into Mcp-Param-Priority) is not an integer`)))
    expect(paramHeadersOf(declared, { priority: 1.5 })).toMatchObject({ _tag: "Failure" })
    expect(paramHeadersOf(declared, { region: 5 })).toEqual(Result.fail(expect.stringContaining("is not a string")))
    expect(paramHeadersOf(declared, { verbose: "yes" })).toEqual(Result.fail(expect.stringContaining("is not a boolean")))
    const huge = paramHeadersOf(declared, { region: "é".repeat(10_000_000) })
    expect(huge).toEqual(Result.fail(expect.stringContaining(`over ${MAX_PARAM_HEADER_BYTES} bytes at Mcp-Param-Region`)))
    // each under the bound, together over it
    const half = "x".repeat(MAX_PARAM_HEADER_BYTES / 2)
    expect(paramHeadersOf(declared, { region: half, greeting: half })).toEqual(Result.fail(expect.stringContaining("at Mcp-Param-Greeting")))
    // the 10-million-character value is refused before it is encoded
    expect(performance.now() - started).toBeLessThan(200)
  })
})

describe("the bridge's url entries (SEP-2243)", () => {
  it.live("2026-07-28: declared arguments go in Mcp-Param-* headers, encoded; invalid tools are left out, the others stay", () =>
    Effect.gen(function*() {
      const server = yield* rawServer
      const ws = yield* tempDir("mcp-param-headers-")
      const [{ bridge, system }, lines] = yield* recordingLogsWith(() =>
        openBridged(ws, { web: { url: server.url, protocol: "2026-07-28", requiresConfirmation: false } })
      )
      expect(bridge.skipped).toEqual([])
      expect([...bridge.proxies.keys()].sort()).toEqual(["web__mirror", "web__plain", "web__refused"])
      const warnings = lines.map(textOf).filter((line) => line.includes("skipped"))
      for (const tool of invalid) expect(warnings).toContainEqual(expect.stringContaining(`MCP server "web": tool "${tool}" skipped: its`))
      expect(warnings).toContainEqual(expect.stringContaining(`tool "badName" skipped: its x-mcp-header "My Region" at "value" is not an HTTP token`))
      expect(warnings).toContainEqual(expect.stringContaining(`tool "flood" skipped: its input schema declares more than 64`))

      const args = { region: "us-west1", priority: 42, verbose: false, greeting: "Hello, 世界", padded: " padded ", place: { zone: "z1" }, query: "SELECT *", score: 3.5 }
      expect(yield* system.execute("web__mirror", args)).toMatchObject({ success: true, output: "ok" })
      expect(yield* system.execute("web__plain", { text: "t" })).toMatchObject({ success: true })
      expect(server.calls.map((call) => call.tool)).toEqual(["mirror", "plain"])
      expect(paramHeadersSeen(server.calls[0])).toEqual({
        "mcp-param-region": "us-west1",
        "mcp-param-priority": "42",
        "mcp-param-verbose": "false",
        "mcp-param-greeting": "=?base64?SGVsbG8sIOS4lueVjA==?=",
        "mcp-param-padded": "=?base64?IHBhZGRlZCA=?=",
        "mcp-param-zone": "z1"
      })
      // the standard headers are the SDK transport's, on every 2026 request
      expect(server.calls[0]?.headers).toMatchObject({ "mcp-method": "tools/call", "mcp-name": "mirror", "mcp-protocol-version": "2026-07-28" })
      expect(paramHeadersSeen(server.calls[1])).toEqual({})

      // an argument too large for a header: the call fails saying why, and nothing is sent
      const huge = yield* system.execute("web__mirror", { region: "x".repeat(100_000) })
      expect(huge).toMatchObject({ success: false, errorCode: "TOOL_ERROR" })
      expect(huge.success ? "" : huge.error).toContain(`over ${MAX_PARAM_HEADER_BYTES} bytes at Mcp-Param-Region`)
      expect(server.calls).toHaveLength(2)

      // a HeaderMismatch answer (the tool's declarations changed, say): the call fails saying so, and the tools are listed again
      const listed = server.lists()
      const refused = yield* system.execute("web__refused", { region: "r" })
      expect(refused).toMatchObject({ success: false })
      expect(refused.success ? "" : refused.error).toContain("MCP error -32020: Header mismatch")
      expect(refused.success ? "" : refused.error).toContain("its tools are listed again")
      expect(yield* eventually(() => server.lists() > listed)).toBe(true)
    }))

  it.live("the 2025 era and stdio entries are not touched: every tool listed, no Mcp-Param-* header", () =>
    Effect.gen(function*() {
      const server = yield* rawServer
      const ws = yield* tempDir("mcp-param-headers-")
      const [{ bridge, system }, lines] = yield* recordingLogsWith(() =>
        openBridged(ws, {
          old: { url: server.url, protocol: "legacy", requiresConfirmation: false },
          local: nodeServer("paramHeaders.mjs", [], { requiresConfirmation: false }),
          local2026: nodeServer("paramHeaders.mjs", [], { requiresConfirmation: false, protocol: "2026-07-28" })
        })
      )
      expect(bridge.skipped).toEqual([])
      const listed = [...bridge.proxies.keys()]
      // every tool with an invalid declaration is there (flood's 10,000 properties pass the listing's cost bound: not this check's)
      for (const tool of ["mirror", "plain", "badName", "badType", "dupe", "underItems", "longName"]) {
        expect(listed).toContain(`old__${tool}`)
        expect(listed).toContain(`local__${tool}`)
        expect(listed).toContain(`local2026__${tool}`)
      }
      expect(lines.map(textOf).filter((line) => line.includes("x-mcp-header"))).toEqual([])
      expect(yield* system.execute("old__mirror", { region: "us-west1", priority: 1 })).toMatchObject({ success: true })
      expect(yield* system.execute("old__badName", { value: "v" })).toMatchObject({ success: true })
      expect(yield* system.execute("local__mirror", { region: "us-west1" })).toMatchObject({ success: true, output: "mirror" })
      expect(yield* system.execute("local2026__badName", { value: "v" })).toMatchObject({ success: true, output: "badName" })
      expect((yield* bridge.servers).map((s) => [s.name, s.protocol])).toEqual([
        ["old", "2025-11-25"],
        ["local", "2025-11-25"],
        ["local2026", "2026-07-28"]
      ])
      expect(server.calls.map((call) => call.tool)).toEqual(["mirror", "badName"])
      expect(server.calls.map(paramHeadersSeen)).toEqual([{}, {}])
      expect(server.calls[0]?.headers["mcp-method"]).toBeUndefined()
    }))

  it.live("an SDK v2 McpServer (which refuses a call whose Mcp-Param-* headers do not match its body) takes the bridge's calls", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const handler = createMcpHandler(() => {
        const server = new McpServer({ name: "validating", version: "1.0.0" })
        server.registerTool("locate", {
          description: "Finds a place in a region",
          inputSchema: fromJsonSchema<{ region: string; count?: number; exact?: boolean }>({
            type: "object",
            properties: {
              region: mirrored({ type: "string" }, "Region"),
              count: mirrored({ type: "integer" }, "Count"),
              exact: mirrored({ type: "boolean" }, "Exact")
            },
            required: ["region"]
          })
        }, (args) => {
          seen.push(args)
          return { content: [{ type: "text", text: `found in ${args.region}` }] }
        })
        return server
      })
      const { url } = yield* listenMcp(handler)
      const ws = yield* tempDir("mcp-param-headers-")
      const { bridge, system } = yield* openBridged(ws, { sdk: { url, protocol: "2026-07-28", requiresConfirmation: false } })
      expect([...bridge.proxies.keys()]).toEqual(["sdk__locate"])
      const region = " Zürich, 世界 "
      expect(yield* system.execute("sdk__locate", { region, count: 3, exact: true })).toMatchObject({ success: true, output: `found in ${region}` })
      expect(yield* system.execute("sdk__locate", { region: "us-west1" })).toMatchObject({ success: true, output: "found in us-west1" })
      expect(seen).toEqual([{ region, count: 3, exact: true }, { region: "us-west1" }])
    }))
})
