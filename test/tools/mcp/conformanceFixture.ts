/**
 * The server the MCP conformance suite's server scenarios run against: our `ToolSystem` (no
 * builtins) holding those of the suite's fixture tools a registry tool can be, served by
 * `serveMcpHttp` on 127.0.0.1. The suite calls the SDK fixture's tool names; the tools it needs
 * and a registry cannot hold (image, audio and resource content, sampling, roots, free
 * elicitation forms and request state through `input_required`) and the resources, prompts,
 * completion and logging the registry does not serve are expected failures
 * (conformance.expected-failures.yml says why, one by one).
 *
 * Run alone (`node --import tsx test/tools/mcp/conformanceFixture.ts PORT`) it serves until killed.
 */
import { Duration, Effect, Schema } from "effect"
import { PROGRESS_INTERVAL_MS, reportProgress, Tool, ToolSystem, Workspace } from "../../../src/index.js"
import { serveMcpHttp } from "../../../src/tools/mcp/http.js"
import { makeRawTool } from "../../../src/tools/mcp/rawTool.js"
import { ToolError } from "../../../src/domain/errors.js"

const simpleText = Tool.make("test_simple_text", {
  description: "Tests simple text content response",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.succeed("This is a simple text response for testing.")
})

const errorHandling = Tool.make("test_error_handling", {
  description: "Tests error response handling",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.fail(new ToolError({ tool: "test_error_handling", message: "This tool intentionally returns an error for testing" }))
})

const streamingElicitation = Tool.make("test_streaming_elicitation", {
  description: "SEP-2575: yields a response stream carrying no independent top-level JSON-RPC requests",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.succeed("stream observed: result frames only, no top-level requests")
})

const loggingTool = Tool.make("test_logging_tool", {
  description: "SEP-2575: logs nothing unless the request asks for a level",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.succeed("test_logging_tool ran")
})

// as the SDK's fixture defines it (0/100, 50/100, 100/100), but with the steps further apart than
// our throttle's interval: the SDK's fixture waits ~50 ms between them, inside one 100 ms
// interval, so whether its middle step went out or was replaced by the last one (as the channel
// documents) turned on which of two timers due at the same moment fired first, and a loaded CI
// machine once saw 2 notifications where the scenario wants 3. With each step an interval and
// a bit after the one before, each goes out: the first at once, the second when the interval
// has passed, the last as the handler ends. Without a progress token it just takes the time
const STEP = Duration.millis(PROGRESS_INTERVAL_MS + 20)
const toolWithProgress = Tool.make("test_tool_with_progress", {
  description: "Tests tool that reports progress notifications",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () =>
    Effect.gen(function*() {
      yield* reportProgress({ progress: 0, total: 100 })
      yield* Effect.sleep(STEP)
      yield* reportProgress({ progress: 50, total: 100 })
      yield* Effect.sleep(STEP)
      yield* reportProgress({ progress: 100, total: 100 })
      return "Progress test completed"
    })
})

const xMcpHeader = makeRawTool("test_x_mcp_header", {
  description: "Tests SEP-2243 Mcp-Param-* server-side validation",
  parameters: {
    type: "object",
    properties: {
      region: { type: "string", description: "mirrored into Mcp-Param-Region", "x-mcp-header": "Region" },
      level: { type: "integer", description: "non-mirrored argument" }
    }
  },
  readOnly: true,
  handler: (args) => Effect.succeed(`region=${typeof args.region === "string" ? args.region : "<none>"}`)
})

const jsonSchema2020 = makeRawTool("json_schema_2020_12_tool", {
  description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
  parameters: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: {
      address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } }
    },
    properties: {
      name: { type: "string" },
      address: { $ref: "#/$defs/address" }
    },
    additionalProperties: false
  },
  readOnly: true,
  handler: (args) => Effect.succeed(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`)
})

/** The fixture's tools. */
export const fixtureTools = [simpleText, errorHandling, streamingElicitation, loggingTool, toolWithProgress, xMcpHeader, jsonSchema2020]

/** The fixture served on 127.0.0.1 (`port`, 0 for a free one) for the scope. */
export const serveFixture = (workspace: string, port = 0) =>
  serveMcpHttp({ port, name: "effect-tool-system-conformance", sessions: {} }).pipe(
    Effect.provide(ToolSystem.layerNode({ builtins: false, tools: fixtureTools, workspace: Workspace.layerFixed(workspace) }))
  )

if (process.argv[1]?.endsWith("conformanceFixture.ts")) {
  const port = Number(process.argv[2] ?? 0)
  Effect.runFork(Effect.scoped(Effect.gen(function*() {
    const { url } = yield* serveFixture(process.cwd(), port)
    yield* Effect.logInfo(`conformance fixture on ${url}`)
    yield* Effect.never
  })))
}
