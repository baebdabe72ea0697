/**
 * A remote MCP server over Streamable HTTP: the SDK v2 client transport
 * (`StreamableHTTPClientTransport`) over a guarded `fetch`, owned by a scope, in the shape the
 * bridge knows a stdio server by (`ServerLink`: how it ended, why it was stopped).
 *
 * Which URLs: `https:`, or plain `http:` to a loopback host (`127.0.0.1`, `[::1]`, `localhost`)
 * unless the entry sets `allowInsecureHttp`; any other scheme is refused. A refused URL fails the
 * connection (the server is skipped, fail-open).
 *
 * What a server sends is bounded as a stdio server's is: every response body is read through a
 * counter. A body that is not an event stream (a JSON answer) may be at most `MAX_MESSAGE_BYTES`;
 * an event stream may carry no line over `MAX_MESSAGE_BYTES` and no more than
 * `maxPushedBytesPerSecond` in a second. Past a bound the server is refused: the body fails, the
 * stop is logged with the reason, the transport closes (its requests are aborted), and the calls
 * in flight fail naming why (`stoppedFor`). The body of an error status is cut at
 * `MAX_ERROR_BODY_BYTES` (its text ends up in the call's error). Each call's deadline is the
 * SDK request's own timer: a server that never ends its stream cannot hold a call past it.
 *
 * OAuth as a client is not built here: the provider of an entry's `oauth` (`oauthProvider.ts`),
 * or the bridge's `authProvider` option (SDK v2's `AuthProvider`, or an `OAuthClientProvider`), is
 * handed to the transport as it is; the SDK's OAuth requests (discovery, registration, tokens) go
 * through the same guarded `fetch`.
 *
 * @since 0.6.0
 */
import { type AuthProvider, type FetchLike, type OAuthClientProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { formatBytes } from "../shared/httpBody.js"
import type { McpHttpServerConfig } from "./config.js"
import { MAX_MESSAGE_BYTES } from "./inbound.js"
import type { ServerProcess } from "./process.js"
import { makeRateMeter, type RefusalKind, type ServerLimits } from "./serverLimits.js"

/** Most bytes of an error status's body kept (the rest is cut). */
export const MAX_ERROR_BODY_BYTES = 64 * 1024

/** The hosts plain `http:` may reach without `allowInsecureHttp`. */
const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"])

/**
 * What an HTTP server's connection is known by: a `ServerProcess` without a process (`pid` 0,
 * no stderr) and without the stdio call table (its calls go through the SDK client).
 *
 * @internal
 */
export type ServerLink = Omit<ServerProcess, "calls">

/**
 * The URL of an HTTP server could not be used.
 *
 * @internal
 */
export class BadServerUrl extends Data.TaggedError("BadServerUrl")<{ readonly reason: string }> {
  override get message(): string {
    return this.reason
  }
}

/**
 * The URL, when the rule allows it (see the module's note).
 *
 * @internal
 */
export const checkServerUrl = (config: McpHttpServerConfig): URL | BadServerUrl => {
  let url: URL
  try {
    url = new URL(config.url)
  } catch {
    return new BadServerUrl({ reason: `"${config.url}" is not a URL` })
  }
  if (url.protocol === "https:") return url
  if (url.protocol !== "http:") return new BadServerUrl({ reason: `the scheme ${url.protocol} is not bridged (https: or http:)` })
  if (LOOPBACK.has(url.hostname) || config.allowInsecureHttp === true) return url
  return new BadServerUrl({
    reason: `plain http: is allowed only to a loopback host (127.0.0.1, [::1], localhost); use https:, or set "allowInsecureHttp": true`
  })
}

/** What a guarded `fetch` needs. */
interface GuardOptions {
  readonly limits: ServerLimits
  /** Stops the server, saying why. */
  readonly refuse: (why: string, kind: RefusalKind) => void
  /** The entry's headers, and the origin they go to (the server's). */
  readonly headers?: { readonly origin: string; readonly values: Readonly<Record<string, string>> } | undefined
}

/**
 * `init` with the entry's headers, on a request to the server's origin only: the SDK's OAuth
 * requests (metadata, registration, tokens) use this `fetch` too, and an API key for the MCP
 * server must not go to an authorization server. The SDK's own headers win, as they did over
 * the `requestInit` headers.
 */
const withEntryHeaders = (input: string | URL, init: RequestInit | undefined, options: GuardOptions): RequestInit | undefined => {
  if (options.headers === undefined || new URL(input).origin !== options.headers.origin) return init
  const headers = new Headers(init?.headers)
  for (const [name, value] of Object.entries(options.headers.values)) if (!headers.has(name)) headers.set(name, value)
  return { ...init, headers }
}

/** A body read through the bounds: it fails (and the server is refused) past one. */
const guardedBody = (body: ReadableStream<Uint8Array>, kind: "json" | "sse" | "error", options: GuardOptions) => {
  const meter = makeRateMeter(Number.POSITIVE_INFINITY, options.limits.maxPushedBytesPerSecond)
  let total = 0
  let line = 0
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, controller) => {
        if (kind === "error") {
          const left = MAX_ERROR_BODY_BYTES - total
          total += chunk.length
          if (left > 0) controller.enqueue(chunk.length > left ? chunk.subarray(0, left) : chunk)
          if (total >= MAX_ERROR_BODY_BYTES) controller.terminate()
          return
        }
        total += chunk.length
        const lastEnd = chunk.lastIndexOf(10)
        line = lastEnd === -1 ? line + chunk.length : chunk.length - lastEnd - 1
        let why: [string, RefusalKind] | undefined
        if (kind === "json" && total > MAX_MESSAGE_BYTES) {
          why = [`it sent a message over ${MAX_MESSAGE_BYTES / 1024 / 1024} MB`, "broken"]
        } else if (kind === "sse" && line > MAX_MESSAGE_BYTES) {
          why = [`it sent an event-stream line over ${MAX_MESSAGE_BYTES / 1024 / 1024} MB`, "broken"]
        } else if (meter.add(chunk.length) !== undefined) {
          why = [`it sent more than ${formatBytes(options.limits.maxPushedBytesPerSecond)} in a second`, "hostile"]
        }
        if (why === undefined) return controller.enqueue(chunk)
        options.refuse(why[0], why[1])
        controller.error(new Error(`the server was stopped: ${why[0]}`))
      }
    })
  )
}

/** `fetch`, with every response body read through the bounds. */
const guardedFetch = (options: GuardOptions): FetchLike => async (input, init) => {
  const response = await fetch(input, withEntryHeaders(input, init, options))
  if (response.body === null) return response
  const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase()
  const kind = !response.ok ? "error" : type === "text/event-stream" ? "sse" : "json"
  return new Response(guardedBody(response.body, kind, options), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers
  })
}

/**
 * Options of an HTTP link.
 *
 * @internal
 */
export interface HttpLinkOptions {
  readonly server: string
  readonly limits: ServerLimits
  readonly authProvider?: AuthProvider | OAuthClientProvider | undefined
}

/**
 * An HTTP server's link.
 *
 * @internal
 */
export interface HttpLink extends ServerLink {
  readonly transport: StreamableHTTPClientTransport
  /**
   * The connection is lost (a request could not reach the server: it is down, or it forgot our
   * session): the transport closes, and the next call reconnects, as a crashed stdio server's
   * next call restarts it.
   */
  readonly lost: (reason: string) => void
}

/**
 * Opens the transport of an HTTP server in the current scope (closing the scope closes it).
 * Fails with `BadServerUrl` when the URL is refused. Nothing is sent until the SDK client
 * connects over `transport`.
 *
 * @internal
 */
export const openHttpLink = (
  config: McpHttpServerConfig,
  options: HttpLinkOptions
): Effect.Effect<HttpLink, BadServerUrl, Scope.Scope> =>
  Effect.gen(function*() {
    const checked = checkServerUrl(config)
    if (checked instanceof BadServerUrl) return yield* checked
    const context = yield* Effect.context<never>()
    const ended = yield* Deferred.make<string>()
    let stoppedFor: string | undefined
    let hostile = false
    let stopRequested = false
    let endedOnItsOwn = false
    let lostFor: string | undefined

    let transport: StreamableHTTPClientTransport | undefined
    const closeTransport = (): Promise<void> => transport === undefined ? Promise.resolve() : transport.close().catch(() => undefined)
    const refuse = (why: string, kind: RefusalKind) => {
      if (stoppedFor !== undefined) return
      stoppedFor = `it was stopped: ${why}`
      hostile = kind === "hostile"
      stopRequested = true
      Effect.runForkWith(context)(Effect.logWarning(`MCP server "${options.server}" (${config.url}) is stopped: ${why}`))
      // after the current turn: this runs inside the transport's read of a body
      queueMicrotask(() => void closeTransport())
    }
    transport = new StreamableHTTPClientTransport(checked, {
      fetch: guardedFetch({
        limits: options.limits,
        refuse,
        ...(config.headers === undefined ? {} : { headers: { origin: checked.origin, values: config.headers } })
      }),
      ...(options.authProvider === undefined ? {} : { authProvider: options.authProvider })
    })
    const open = transport
    // chained by the SDK client's `connect`, which sets its own after this one
    open.onclose = () => {
      endedOnItsOwn = !stopRequested
      const how = stoppedFor !== undefined
        ? `was stopped: ${stoppedFor.replace(/^it was stopped: /, "")}`
        : lostFor === undefined
        ? "closed the connection"
        : `could not be reached (${lostFor})`
      Deferred.doneUnsafe(ended, Effect.succeed(how))
    }
    const stop = Effect.promise(() => {
      stopRequested = true
      return closeTransport()
    }).pipe(Effect.asVoid)
    yield* Effect.addFinalizer(() => stop)
    return {
      pid: 0,
      transport: open,
      exited: Deferred.await(ended),
      endedOnItsOwn: () => endedOnItsOwn,
      stderrTail: () => "",
      stoppedFor: () => stoppedFor,
      hostile: () => hostile,
      stop,
      lost: (reason) => {
        if (lostFor !== undefined || stopRequested) return
        lostFor = reason
        void closeTransport()
      }
    }
  })
