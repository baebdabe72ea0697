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
 * `json_schema_echo` with the input schema the bridge keeps of `json_schema_2020_12_tool`, a tool
 * the context's `toolCalls` names with its arguments there, the others with placeholders for
 * their required primitive arguments), as the scenarios expect of a client; each outcome goes to stderr.
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
/**
 * The calls a scenario asks for (`toolCalls`: name and arguments; http-custom-headers gives
 * them), by tool. A `null` argument is left out: the bridge checks arguments against the input
 * schema, which refuses `null` for a typed property, and the spec (SEP-2243) treats a `null`
 * argument as an absent one (no `Mcp-Param-*` header either way).
 */
const toolCalls = new Map<string, Record<string, unknown>>()
const asked: unknown = typeof context === "object" && context !== null ? Reflect.get(context, "toolCalls") : undefined
for (const call of Array.isArray(asked) ? asked : []) {
  if (typeof call !== "object" || call === null) continue
  const name: unknown = Reflect.get(call, "name")
  const args: unknown = Reflect.get(call, "arguments")
  if (typeof name !== "string" || typeof args !== "object" || args === null) continue
  toolCalls.set(name, Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null)))
}
/** Arguments a model would make up for the required primitive properties of `schema` (its other properties left out). */
const placeholders = (schema: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const properties: unknown = schema.properties
  const required: unknown = schema.required
  if (typeof properties !== "object" || properties === null || !Array.isArray(required)) return {}
  const made: Record<string, unknown> = {}
  for (const key of required) {
    const property: unknown = typeof key === "string" ? Reflect.get(properties, key) : undefined
    const type: unknown = typeof property === "object" && property !== null ? Reflect.get(property, "type") : undefined
    if (type === "string") made[key] = "conformance"
    else if (type === "integer" || type === "number") made[key] = 1
    else if (type === "boolean") made[key] = true
  }
  return made
}

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
    const given = toolCalls.get(target.tool)
    const args = given !== undefined
      ? given
      : target.tool === "add_numbers"
      ? { a: 5, b: 3 }
      : target.tool === "json_schema_echo"
      ? { schema: focalSchema }
      : placeholders((yield* registry.get(name)).spec.parameters)
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
