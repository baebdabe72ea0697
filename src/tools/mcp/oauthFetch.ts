/**
 * The `fetch` of the bridge's OAuth requests to everything but the MCP server itself: the
 * protected-resource metadata, the authorization server's metadata, registration, and the token
 * endpoint (code exchange, refresh).
 *
 * - It sends only what the SDK's OAuth code puts in a request: never the entry's `headers` (they
 *   are for the MCP server; an API key there must not reach an authorization server or a
 *   metadata URL a hostile server named), never the bearer token (the transport adds that to
 *   its own requests to the MCP server only).
 * - Redirects: a `GET` (a metadata document) follows at most 5, each within the origin it was
 *   sent to; a `POST` (registration, token) follows none, since a `307` would send its body (a
 *   code and its PKCE verifier, a refresh token, a client secret) on to wherever it points. A
 *   redirect not followed is answered as it is (the SDK then fails the step, saying so).
 * - Each request has a deadline (`OAUTH_REQUEST_TIMEOUT_MS`, besides the caller's signal) and
 *   its answer is cut at `OAUTH_MAX_RESPONSE_BYTES`: an authorization server that hangs or
 *   floods fails the step instead of holding every call of the server (they wait for the one
 *   refresh) or filling the heap.
 *
 * @since 1.0.0
 */
import type { FetchLike } from "@modelcontextprotocol/client"

/**
 * The deadline of one OAuth request, in ms.
 *
 * @internal
 */
export const OAUTH_REQUEST_TIMEOUT_MS = 30_000

/**
 * The largest answer to an OAuth request taken, in bytes (metadata and tokens are a few KiB).
 *
 * @internal
 */
export const OAUTH_MAX_RESPONSE_BYTES = 1024 * 1024

const MAX_REDIRECTS = 5

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** Statuses whose `Response` has no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304])

/** `body`, failing the read once more than `max` bytes went through. */
const capped = (body: ReadableStream<Uint8Array>, max: number, url: string): ReadableStream<Uint8Array> => {
  let total = 0
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, controller) => {
        total += chunk.byteLength
        if (total > max) return controller.error(new Error(`the answer of ${url} is over ${max} bytes`))
        controller.enqueue(chunk)
      }
    })
  )
}

/** Where a redirect points, when it is one that may be followed from `from`. */
const followable = (from: URL, response: Response): URL | undefined => {
  if (!REDIRECTS.has(response.status)) return undefined
  const location = response.headers.get("location")
  if (location === null || !URL.canParse(location, from.href)) return undefined
  const to = new URL(location, from)
  return to.origin === from.origin && to.username === from.username && to.password === from.password ? to : undefined
}

/**
 * The OAuth `fetch` (see the module's note), over `base` (the platform's `fetch` by default).
 *
 * @internal
 */
export const makeOAuthFetch = (options: {
  readonly timeoutMs?: number | undefined
  readonly maxBytes?: number | undefined
  readonly base?: FetchLike | undefined
} = {}): FetchLike => {
  const base = options.base ?? fetch
  const timeoutMs = options.timeoutMs ?? OAUTH_REQUEST_TIMEOUT_MS
  const maxBytes = options.maxBytes ?? OAUTH_MAX_RESPONSE_BYTES
  return async (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs)
    const signal = init?.signal == null ? deadline : AbortSignal.any([init.signal, deadline])
    const method = (init?.method ?? "GET").toUpperCase()
    let url = new URL(input)
    let response: Response
    for (let followed = 0;; followed++) {
      response = await base(url, { ...init, redirect: "manual", signal })
      const next = method === "GET" && followed < MAX_REDIRECTS ? followable(url, response) : undefined
      if (next === undefined) break
      await response.body?.cancel().catch(() => undefined)
      url = next
    }
    const declared = Number(response.headers.get("content-length") ?? Number.NaN)
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined)
      throw new Error(`the answer of ${url.origin}${url.pathname} is over ${maxBytes} bytes (${declared} declared)`)
    }
    if (response.body === null || NULL_BODY.has(response.status)) return response
    return new Response(capped(response.body, maxBytes, `${url.origin}${url.pathname}`), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers
    })
  }
}
