/**
 * The client the MCP conformance suite's client scenarios drive (`conformance client --command
 * "node --import tsx test/tools/mcp/conformanceClient.ts"`): it is our bridge. The runner appends
 * the scenario server's URL and sets `MCP_CONFORMANCE_SCENARIO` (and `MCP_CONFORMANCE_CONTEXT`,
 * JSON, for some: a pre-registered `client_id`/`client_secret`).
 *
 * The URL is bridged as one `url` entry with `oauth` (a client ID metadata document URL, used
 * when the authorization server supports them; else dynamic registration; the context's client
 * when it gives one), through `McpBridge` with an `McpOAuth` whose `authorize` follows the
 * authorization URL as a browser would and reads the code from the redirect (tokens kept in
 * memory), and an `McpElicitation` that accepts every question with no field filled (so the
 * form's defaults apply). Then every proxy is called through the tool system (`add_numbers` with `a` and `b`,
 * `json_schema_echo` with the input schema the bridge keeps of `json_schema_2020_12_tool`, the
 * others with no arguments), as the scenarios expect of a client; each outcome goes to stderr.
 * Exits 1 when the server was skipped (its reason on stderr).
 */
import { Context, Effect, Layer, Option } from "effect"
import { McpBridge } from "../../../src/services/McpBridge.js"
import { McpElicitation } from "../../../src/services/McpElicitation.js"
import { McpOAuth, type McpOAuthCredentials, McpOAuthError } from "../../../src/services/McpOAuth.js"
import { ToolRegistry } from "../../../src/services/ToolRegistry.js"
import { ToolSystem } from "../../../src/services/ToolSystem.js"

const url = process.argv.at(-1) ?? ""
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ""
const context: unknown = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}")
const contextField = (key: string): string | undefined => {
  const value = typeof context === "object" && context !== null ? Reflect.get(context, key) : undefined
  return typeof value === "string" ? value : undefined
}
const clientId = contextField("client_id")
const clientSecret = contextField("client_secret")

const kept = new Map<string, McpOAuthCredentials>()
const OAuth = McpOAuth.layerWithStore({
  authorize: ({ authorizationUrl, server }) =>
    Effect.gen(function*() {
      const response = yield* Effect.promise(() => fetch(authorizationUrl, { redirect: "manual" }))
      const location = response.headers.get("location")
      if (location === null) return yield* new McpOAuthError({ server, reason: `the authorization server answered ${response.status}` })
      const back = new URL(location)
      const error = back.searchParams.get("error")
      if (error !== null) return yield* new McpOAuthError({ server, reason: `declined (${error})` })
      return {
        code: back.searchParams.get("code") ?? "",
        iss: back.searchParams.get("iss") ?? undefined,
        state: back.searchParams.get("state") ?? undefined
      }
    }),
  store: {
    load: ({ server }) => Effect.sync(() => Option.fromNullishOr(kept.get(server))),
    save: ({ server }, credentials) => Effect.sync(() => void kept.set(server, credentials)),
    clear: ({ server }) => Effect.sync(() => void kept.delete(server))
  }
})

// every question a scenario's server asks is accepted with no field filled: the form's defaults apply (SEP-1034)
const Elicitation = McpElicitation.layer(() => Effect.succeed({ action: "accept", content: {} }))

const servers = {
  server: {
    url,
    requiresConfirmation: false,
    oauth: {
      redirectUrl: "http://localhost:3000/callback",
      clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
      ...(clientId === undefined ? {} : { clientId }),
      ...(clientSecret === undefined ? {} : { clientSecret })
    }
  }
}

const main = Effect.scoped(Effect.gen(function*() {
  const built = yield* Layer.build(McpBridge.layer(servers, { initTimeout: "20 seconds" }).pipe(
    Layer.provideMerge(ToolSystem.layerNode({ builtins: false })),
    Layer.provide(OAuth),
    Layer.provide(Elicitation)
  ))
  const bridge = Context.get(built, McpBridge)
  const system = Context.get(built, ToolSystem)
  const registry = Context.get(built, ToolRegistry)
  for (const { reason, server } of bridge.skipped) {
    process.stderr.write(`[bridge] ${scenario}: "${server}" skipped: ${reason}\n`)
    return 1
  }
  // json_schema_echo wants the input schema of json_schema_2020_12_tool as the client keeps it
  const focal = [...bridge.proxies].find(([, target]) => target.tool === "json_schema_2020_12_tool")?.[0]
  const focalSchema = focal === undefined ? undefined : (yield* registry.get(focal)).spec.parameters
  for (const [name, target] of bridge.proxies) {
    const args = target.tool === "add_numbers"
      ? { a: 5, b: 3 }
      : target.tool === "json_schema_echo"
      ? { schema: focalSchema }
      : {}
    const result = yield* system.execute(name, args)
    process.stderr.write(`[bridge] ${scenario}: ${name} ${result.success ? "answered" : `failed: ${result.error}`}\n`)
  }
  return 0
}))

Effect.runPromise(main).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`[bridge] ${scenario}: ${String(error)}\n`)
    process.exit(1)
  }
)
