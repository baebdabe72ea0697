/**
 * The `UrlPolicy` service (see `services/UrlPolicy.ts`): an HTTP client whose every socket
 * goes through the policy's address check, and which follows redirects by hand.
 *
 * Why this client and not `FetchHttpClient` or `NodeHttpClient`'s Agent:
 * - The check must judge the address the socket actually connects to, not an address looked
 *   up beforehand (DNS rebinding: a name answers a public address to the check and a private
 *   one to the connection). That takes a hook inside the connection: undici's connector
 *   (`Agent({ connect })`) is handed every new connection, and the `lookup` it passes to
 *   `net.connect`/`tls.connect` is the resolution the socket uses. Node skips `lookup` for an
 *   address literal (`127.0.0.1`, `[::1]`; the URL parser already turned `127.1` and
 *   `0x7f.1` into `127.0.0.1`), so the connector checks literals itself before any socket
 *   exists. Node's `http.Agent` takes a `lookup` too, but Node's HTTP client does not
 *   decompress, so every answer would need a hand-made decoding chain; and the platform's
 *   `NodeHttpClient` module loads undici anyway.
 * - Requests go through undici's own `fetch` with that dispatcher (`redirect: "manual"`):
 *   fetch decodes `gzip`/`deflate`/`br` as a stream, so `shared/httpBody.ts` counts bytes
 *   after decompression (a gzip bomb is cut at the cap), and it refuses header values with
 *   CR/LF. undici's `request` would need the experimental decompress interceptor, which
 *   warns on stderr.
 * - undici is imported on the first request (it takes ~130 ms to load), so building the
 *   graph costs nothing for programs that never fetch.
 *
 * Redirects are followed here, at most `MAX_REDIRECTS`, each hop a new request through the
 * same client (so the scheme check and the socket check apply again); credentials
 * (`Authorization`, `Cookie`, `Proxy-Authorization`) are dropped when a hop changes origin,
 * and 301/302 after a POST and 303 become a GET without a body, as fetch does.
 *
 * @since 0.1.0
 */
import type * as Undici from "@effect/platform-node/Undici"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Headers from "effect/http/Headers"
import * as HttpBody from "effect/http/HttpBody"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Dns from "node:dns"
import type * as Net from "node:net"
import type { UrlPolicyService } from "../services/UrlPolicy.js"
import { discardBody } from "../tools/shared/httpBody.js"
import { type CompiledRules, isIP, refusalOf, UrlRefused } from "./urlPolicyRules.js"

/**
 * Redirects followed at most, per request.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_REDIRECTS = 5

/** How long a connection may take to open (TCP and TLS). */
export const CONNECT_TIMEOUT_MS = 10_000

/**
 * More redirects than `MAX_REDIRECTS`: the last one was not followed.
 *
 * @since 0.1.0
 * @category errors
 */
export class TooManyRedirects extends Data.TaggedError("TooManyRedirects")<{
  readonly url: string
  readonly max: number
  readonly message: string
}> {}

/** Resolves a name to all its addresses (`dns.lookup` with `all: true`). */
export type Resolve = (
  hostname: string,
  options: Dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: Array<Dns.LookupAddress>) => void
) => void

/** What tests replace: name resolution and the connector that opens sockets. */
export interface UrlPolicyInternals {
  /** Default `dns.lookup`. */
  readonly resolve?: Resolve
  /** Default undici's `buildConnector`. */
  readonly buildConnector?: (options: Undici.buildConnector.BuildOptions) => Undici.buildConnector.connector
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

/** Dropped from a redirected request when the hop changes origin. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"]

/** Dropped with the body when a redirect turns the request into a GET. */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-language", "content-location"]

/** `node:dns` loaded on the first lookup, not with the module (start time: see `isIP`). */
const defaultResolve: Resolve = (hostname, options, callback) =>
  process.getBuiltinModule("node:dns").lookup(hostname, options, callback)

/**
 * The first `UrlRefused` in a chain of causes (fetch wraps a connection error in a `TypeError`),
 * looked for in the error and its first seven causes (a cycle of causes ends it too).
 *
 * @internal
 */
export const refusalIn = (error: unknown): UrlRefused | undefined => {
  let current = error
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    if (current instanceof UrlRefused) return current
    current = "cause" in current ? current.cause : undefined
  }
  return undefined
}

/**
 * The `lookup` a socket resolves its host with: every address the name resolves to must pass
 * the rules, else the connection fails with `UrlRefused` before it is attempted.
 */
const guardedLookup = (rules: CompiledRules, port: number | undefined, resolve: Resolve): Net.LookupFunction =>
(hostname, options, callback) =>
  resolve(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, [])
    for (const { address } of addresses) {
      const refusal = refusalOf(rules, address, port, hostname)
      if (Option.isSome(refusal)) return callback(refusal.value, [])
    }
    const first = addresses[0]
    if (first === undefined) {
      return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), [])
    }
    return options.all === true ? callback(null, addresses) : callback(null, first.address, first.family)
  })

/**
 * undici's connector with the policy in front: an address literal is judged before any socket
 * exists; a name is resolved by the guarded `lookup`. One underlying connector per port that
 * an allow entry names (their `lookup` knows the port), one for every other port.
 *
 * @internal
 */
export const guardedConnector = (
  undici: typeof Undici,
  rules: CompiledRules,
  internals: UrlPolicyInternals
): Undici.buildConnector.connector => {
  const build = internals.buildConnector ?? undici.buildConnector
  const resolve = internals.resolve ?? defaultResolve
  const connectors = new Map<number | undefined, Undici.buildConnector.connector>()
  const connectorFor = (port: number | undefined) => {
    const existing = connectors.get(port)
    if (existing !== undefined) return existing
    const made = build({ lookup: guardedLookup(rules, port, resolve), timeout: CONNECT_TIMEOUT_MS })
    connectors.set(port, made)
    return made
  }
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === "https:" ? 443 : 80)
    const relevant = rules.ports.has(port) ? port : undefined
    // Defence in depth: `checkUrl` has already refused such a literal, with the same rules and port.
    if (isIP(options.hostname) !== 0) {
      const refusal = refusalOf(rules, options.hostname, relevant, options.hostname)
      if (Option.isSome(refusal)) return callback(refusal.value, null)
    }
    return connectorFor(relevant)(options, callback)
  }
}

/** The request's body as fetch takes it; only byte bodies are sent. */
const bodyOf = (request: HttpClientRequest.HttpClientRequest): Option.Option<Uint8Array | string | undefined> => {
  const body = request.body
  switch (body._tag) {
    case "Empty":
      return Option.some(undefined)
    case "Uint8Array":
    case "Raw":
      return typeof body.body === "string" || body.body instanceof Uint8Array ? Option.some(body.body) : Option.none()
    default:
      return Option.none()
  }
}

/**
 * undici's answer as the platform's `Response` that `HttpClientResponse.fromWeb` takes (the
 * installed undici and the one Node's own types describe differ in version): the same body
 * stream (cancelling it aborts the request), status and headers (`Set-Cookie` lines kept apart).
 */
const asGlobalResponse = (response: Undici.Response): Response =>
  new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: Array.from(response.headers)
  })

interface Loaded {
  readonly fetch: typeof Undici.fetch
  readonly dispatcher: Undici.Dispatcher
}

/** The URL's own refusal: a scheme other than http(s), or an address literal the rules refuse. */
const checkUrl = (rules: CompiledRules) => (url: URL): Option.Option<UrlRefused> => {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Option.some(
      new UrlRefused({
        target: url.href,
        reason: "scheme",
        message: `${url.protocol.slice(0, -1)}: URLs are refused by the URL policy: only http and https`
      })
    )
  }
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  if (isIP(host) === 0) return Option.none()
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80)
  return refusalOf(rules, host, rules.ports.has(port) ? port : undefined, host)
}

/**
 * One hop: the URL checked (fails fast, before undici is even loaded), then undici's fetch
 * through the guarded dispatcher (which checks again, at the socket), no redirect followed.
 */
const singleHopClient = (
  check: (url: URL) => Option.Option<UrlRefused>,
  load: Effect.Effect<Loaded>
): HttpClient.HttpClient =>
  HttpClient.make((request, url, signal) => {
    const refusal = check(url)
    if (Option.isSome(refusal)) {
      return Effect.fail(
        new HttpClientError.HttpClientError({
          reason: new HttpClientError.InvalidUrlError({ request, cause: refusal.value })
        })
      )
    }
    const body = bodyOf(request)
    if (Option.isNone(body)) {
      return Effect.fail(
        new HttpClientError.HttpClientError({
          reason: new HttpClientError.EncodeError({
            request,
            description: "the URL policy's client sends byte and text bodies only"
          })
        })
      )
    }
    const headers = Headers.remove(request.headers, "content-length")
    return Effect.flatMap(load, ({ dispatcher, fetch }) =>
      Effect.tryPromise({
        try: () => {
          const init = { method: request.method, headers, signal, dispatcher, redirect: "manual" } as const
          return fetch(url, body.value === undefined ? init : { ...init, body: body.value })
        },
        catch: (cause) =>
          new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request, cause: refusalIn(cause) ?? cause })
          })
      })).pipe(Effect.map((response) => HttpClientResponse.fromWeb(request, asGlobalResponse(response))))
  })

/** The request for the next hop of a redirect to `next`, as fetch builds it. */
const redirected = (
  request: HttpClientRequest.HttpClientRequest,
  status: number,
  from: URL,
  next: URL
): HttpClientRequest.HttpClientRequest => {
  const toGet = (status === 303 && request.method !== "HEAD") ||
    ((status === 301 || status === 302) && request.method === "POST")
  let headers = request.headers
  if (next.origin !== from.origin) headers = Headers.removeMany(headers, CREDENTIAL_HEADERS)
  if (toGet) headers = Headers.removeMany(headers, BODY_HEADERS)
  // (the URL split into its path, parameters and hash as `HttpClientRequest.get` splits it)
  const target = HttpClientRequest.get(next)
  return HttpClientRequest.makeWith(
    toGet ? "GET" : request.method,
    target.url,
    target.urlParams,
    target.hash,
    headers,
    toGet ? HttpBody.empty : request.body
  )
}

/** Follows redirects by hand through `client`, at most `max`. */
const followRedirects = (client: HttpClient.HttpClient, max: number): HttpClient.HttpClient => {
  const step = (
    response: HttpClientResponse.HttpClientResponse,
    hops: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
    const location = response.headers["location"]
    if (!REDIRECT_STATUSES.has(response.status) || location === undefined) return Effect.succeed(response)
    const request = response.request
    return Effect.gen(function*() {
      yield* discardBody(response)
      const from = Option.getOrThrow(HttpClientRequest.toUrl(request))
      let next: URL
      try {
        next = new URL(location, from)
      } catch (cause) {
        return yield* new HttpClientError.HttpClientError({
          reason: new HttpClientError.DecodeError({
            request,
            response,
            cause,
            description: `the redirect's Location is not a URL`
          })
        })
      }
      if (hops >= max) {
        return yield* new HttpClientError.HttpClientError({
          reason: new HttpClientError.StatusCodeError({
            request,
            response,
            cause: new TooManyRedirects({
              url: next.href,
              max,
              message: `more than ${max} redirects (the last one to ${next.href} was not followed)`
            })
          })
        })
      }
      const answer = yield* client.execute(redirected(request, response.status, from, next))
      return yield* step(answer, hops + 1)
    })
  }
  return HttpClient.transform(client, (first) => Effect.flatMap(first, (response) => step(response, 0)))
}

/** The service: a guarded client (undici loaded on first use, its Agent closed with the scope). */
export const makeUrlPolicy = (
  rules: CompiledRules,
  internals: UrlPolicyInternals = {}
): Effect.Effect<UrlPolicyService, never, Scope.Scope> =>
  Effect.gen(function*() {
    let dispatcher: Undici.Dispatcher | undefined
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        const agent = dispatcher
        if (agent === undefined) return Effect.void
        return Effect.tryPromise(() => agent.destroy()).pipe(
          Effect.catch((error) => Effect.logWarning("could not close the URL policy's HTTP agent", error))
        )
      })
    )
    const load = yield* Effect.cached(
      Effect.promise(() => import("@effect/platform-node/Undici")).pipe(
        Effect.map((undici): Loaded => {
          const agent = new undici.Agent({ connect: guardedConnector(undici, rules, internals) })
          dispatcher = agent
          return { fetch: undici.fetch, dispatcher: agent }
        })
      )
    )
    const check = checkUrl(rules)
    return { check, client: followRedirects(singleHopClient(check, load), MAX_REDIRECTS) }
  })
