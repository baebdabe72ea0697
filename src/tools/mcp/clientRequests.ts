/**
 * The requests a connection sends through the SDK v2 `Client` once it is made: every page of
 * `tools/list` under one deadline, the `tools/call` requests of a 2026-era or HTTP connection,
 * and the sending again of a request refused for authorization once the OAuth provider
 * authorized again (`connection.ts` makes the connection and hands these its client).
 *
 * @since 0.1.0
 */
import { type Client, type ListToolsResult, ProtocolError, SdkHttpError, type Tool as McpTool } from "@modelcontextprotocol/client"
import { makeProgressRoutes, type ToolCalls } from "./directCalls.js"
import { McpOAuthError } from "./oauthModels.js"
import type { BridgeOAuthProvider } from "./oauthProvider.js"

/**
 * Most tools taken from one server.
 *
 * @internal
 */
export const MAX_TOOLS_PER_SERVER = 1000
/**
 * Most pages of one `tools/list` read (a server may page without end, or with empty pages).
 *
 * @internal
 */
export const MAX_TOOL_PAGES = 100
/**
 * The message of anything the SDK or the platform threw.
 *
 * @internal
 */
export const errorText = (error: unknown): string =>
  error instanceof ProtocolError
    ? `MCP error ${error.code}: ${error.message}`
    : error instanceof McpOAuthError
    ? `authorization failed: ${error.reason}`
    : error instanceof Error
    ? error.message
    : String(error)

/**
 * Whether a failed request says the HTTP connection is gone (the server is down or refused the
 * connection: `fetch` failed; or it forgot our session: 404), not that the server answered
 * wrongly (an error answer, a timeout, a body of the wrong type: those fail the call only).
 */
const connectionLost = (error: unknown): boolean =>
  error instanceof TypeError || (error instanceof SdkHttpError && error.data.status === 404)

/**
 * The `tools/call` requests of a connection through the SDK client's `request` (2026-07-28 era,
 * HTTP): the SDK adds the era's envelope, and cancels an aborted request as the era does
 * (`notifications/cancelled`, or closing the request's own HTTP stream). The answer's `result`
 * is checked by the SDK (`CallToolResult`), not against the tool's output schema (`callRequest.ts`
 * does that, bounded). A request an HTTP server could not be reached for marks the connection lost.
 */
export const clientCalls = (
  client: Client,
  lost: ((reason: string) => void) | undefined,
  reauthorize: ((error: unknown) => Promise<boolean>) | undefined
): ToolCalls => {
  const pending = new Map<string, AbortController>()
  let next = 0
  // progress asked for with tokens of ours, not the SDK's `onprogress` (directCalls.ts says why)
  const progressRoutes = makeProgressRoutes()
  client.setNotificationHandler("notifications/progress", (notification) => progressRoutes.hear(notification.params))
  return {
    call: (params, timeoutMs, answer, headers, progress) => {
      const id = `ets-${++next}`
      const controller = new AbortController()
      pending.set(id, controller)
      // headers: SEP-2243's Mcp-Param-* (paramHeaders.ts), on the request's own POST
      const options = { timeout: timeoutMs, signal: controller.signal, ...(headers === undefined ? {} : { headers }) }
      const sent = progressRoutes.ask(id, params, progress)
      const send = () => client.request({ method: "tools/call", params: { ...sent } }, options)
      // a call the server refused for authorization (a refused refresh, a step-up): authorized again, sent again
      sendAuthorized(send, reauthorize, controller.signal).then(
        (result) => {
          progressRoutes.forget(id)
          if (pending.delete(id)) answer({ ok: true, result })
        },
        (error: unknown) => {
          progressRoutes.forget(id)
          if (!pending.delete(id)) return
          if (lost !== undefined && connectionLost(error)) lost(errorText(error))
          answer({ ok: false, error })
        }
      )
      return id
    },
    cancel: (id, reason) => {
      const controller = pending.get(String(id))
      if (controller === undefined) return
      pending.delete(String(id))
      progressRoutes.forget(String(id))
      controller.abort(reason)
    }
  }
}

/**
 * The pages of the server's `tools/list`, all within `timeoutMs` (each page gets what is
 * left of it): at most `MAX_TOOLS_PER_SERVER` tools from at most `MAX_TOOL_PAGES` pages, so a
 * server that pages without end cannot hold a start or a refresh. Fails with the SDK's error
 * (a page not answered in time: its request timeout).
 *
 * Each page is a plain `tools/list` request, not the SDK client's `listTools`: that one also
 * compiles every tool's `outputSchema` with the SDK's own ajv, unbudgeted and all at once (a
 * schema of 2,000 properties: 0.66 s of blocked event loop). The bridge screens and compiles
 * the schemas it takes itself (`listingLimits.ts`).
 *
 * @internal
 */
export const listAllTools = async (client: Client, timeoutMs: number, signal: AbortSignal): Promise<Array<McpTool>> => {
  const deadline = Date.now() + timeoutMs
  const tools: Array<McpTool> = []
  let cursor: string | undefined
  let pages = 0
  do {
    const left = Math.max(1, deadline - Date.now())
    const params = cursor === undefined ? {} : { cursor }
    const page: ListToolsResult = await client.request({ method: "tools/list", params }, { timeout: left, signal })
    tools.push(...page.tools)
    cursor = page.nextCursor
    pages += 1
  } while (cursor !== undefined && tools.length < MAX_TOOLS_PER_SERVER && pages < MAX_TOOL_PAGES)
  return tools.slice(0, MAX_TOOLS_PER_SERVER)
}

/**
 * Whether a request that failed may be sent again: once the provider stepped up the scope a
 * 403 `insufficient_scope` asked for. (A 401 is refreshed or authorized inside the transport,
 * one flow at a time for all the server's requests: `oauthProvider.ts`.)
 */
export const reauthorizer = (provider: BridgeOAuthProvider) => (error: unknown): Promise<boolean> => provider.reauthorize(error)

/** Most authorizations one request may go through before it fails. */
const MAX_REAUTHORIZATIONS = 3

/** `send`, sent again after each authorization `reauthorize` completes (see `reauthorizer`). */
export const sendAuthorized = async <A>(
  send: () => Promise<A>,
  reauthorize: ((error: unknown) => Promise<boolean>) | undefined,
  signal?: AbortSignal
): Promise<A> => {
  for (let attempt = 0;; attempt++) {
    try {
      return await send()
    } catch (error) {
      if (reauthorize === undefined || attempt >= MAX_REAUTHORIZATIONS || signal?.aborted === true || !(await reauthorize(error))) {
        throw error
      }
    }
  }
}
