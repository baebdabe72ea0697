/**
 * `UrlPolicy`'s client, beyond test/tools/ported/web/urlPolicy.test.ts: what `check` says (the
 * default ports, IPv4 literals, the scheme message), the socket's `lookup` (resolution errors,
 * empty answers, both forms `net` asks for), the connectors (one per port group, the default
 * port of a name), transport errors, the bodies it sends, the redirect rules (methods, bodies,
 * a missing or bad `Location`, too many hops) and closing its connections with the scope.
 *
 * Every socket goes to 127.0.0.1: names resolve (through a fake resolver) to loopback only, and
 * the connectors that see other addresses are spies that open nothing.
 */
import * as HttpBody from "effect/http/HttpBody"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Undici from "@effect/platform-node/Undici"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Result, Option, type Scope, Stream } from "effect"
import * as Http from "node:http"
import { isIP } from "node:net"
import { makeUrlPolicy, type Resolve, TooManyRedirects, type UrlPolicyInternals } from "../../src/layers/UrlPolicy.js"
import { compileRules, UrlRefused, type UrlPolicyRules } from "../../src/layers/urlPolicyRules.js"
import type { UrlPolicyService } from "../../src/services/UrlPolicy.js"
import { testServer } from "../helpers/httpServer.js"

/** The policy's service for `rules`, open for the scope. */
const policyWith = (rules: UrlPolicyRules, internals: UrlPolicyInternals = {}) =>
  Effect.flatMap(Effect.orDie(Effect.fromResult(compileRules(rules))), (compiled) => makeUrlPolicy(compiled, internals))

/** Runs `request` through the policy's client: status, body text and final URL, or the error. */
const send = (policy: UrlPolicyService, request: HttpClientRequest.HttpClientRequest) =>
  policy.client.execute(request).pipe(
    Effect.flatMap((response) =>
      Effect.map(response.text, (text) => ({
        status: response.status,
        text,
        url: response.request.url,
        method: response.request.method
      }))
    ),
    Effect.result
  )

/** The errors of a cause chain, outermost first (at most 10). */
const chain = (error: unknown): ReadonlyArray<unknown> => {
  const links: Array<unknown> = []
  let current = error
  while (links.length < 10 && typeof current === "object" && current !== null) {
    links.push(current)
    current = "cause" in current ? current.cause : undefined
  }
  return links
}

/** The `code` of the first error in the chain that has one. */
const codeIn = (error: unknown): unknown =>
  chain(error).map((link) => (link !== null && typeof link === "object" && "code" in link ? link.code : undefined))
    .find((code) => code !== undefined)

/** A resolver answering from a table; a name not in it fails as `getaddrinfo` does. */
const tableResolve = (table: Record<string, ReadonlyArray<string>>): Resolve => (hostname, _options, callback) => {
  const answer = table[hostname]
  if (answer === undefined) {
    return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), [])
  }
  callback(null, answer.map((address) => ({ address, family: isIP(address) })))
}

/** A connector that opens no socket: it runs the guarded `lookup`, records what passed, and fails. */
const spyConnector = () => {
  const passed: Array<string> = []
  const buildConnector = (build: Undici.buildConnector.BuildOptions): Undici.buildConnector.connector =>
  (options, callback) => {
    const lookup = "lookup" in build ? build.lookup : undefined
    if (lookup === undefined) return callback(new Error("spy connector: no lookup"), null)
    lookup(options.hostname, { all: true }, (error) => {
      if (error !== null) return callback(error, null)
      passed.push(`${options.protocol}//${options.hostname}`)
      callback(new Error("spy connector: no socket is opened in this test"), null)
    })
  }
  return { passed, buildConnector }
}

/** A connector that fails every connection with `error` (opens nothing). */
const failingConnector = (error: Error) => (): Undici.buildConnector.connector => (_options, callback) =>
  callback(error, null)

/** An HTTP server on 127.0.0.1 that also reports when each of its connections closes. */
const trackedServer = (respond: Http.RequestListener): Effect.Effect<
  { readonly origin: string; readonly closed: ReadonlyArray<Deferred.Deferred<void>> },
  Error,
  Scope.Scope
> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: Http.Server; readonly origin: string; readonly closed: Array<Deferred.Deferred<void>> }, Error>(
      (resume) => {
        const closed: Array<Deferred.Deferred<void>> = []
        const server = Http.createServer(respond)
        server.on("connection", (socket) => {
          const done = Deferred.makeUnsafe<void>()
          closed.push(done)
          socket.on("close", () => Deferred.doneUnsafe(done, Effect.void))
        })
        server.on("error", (error) => resume(Effect.fail(error)))
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          if (address === null || typeof address === "string") return resume(Effect.fail(new Error("no address")))
          resume(Effect.succeed({ server, origin: `http://127.0.0.1:${address.port}`, closed }))
        })
      }
    ),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

describe("UrlPolicy.check", () => {
  it.effect("refuses IPv4 literals as well as IPv6 ones", () =>
    Effect.gen(function*() {
      const policy = yield* policyWith({})
      const cases = [
        ["http://10.0.0.1/", "private"],
        ["https://127.0.0.1:8443/x", "loopback"],
        ["http://169.254.169.254/", "cloud metadata"],
        ["http://[::1]:8080/", "loopback"],
        ["http://[fd00::1]/", "private"],
        ["http://[fd00:ec2::254]/", "cloud metadata"],
        ["http://[::ffff:10.0.0.1]/", "private"]
      ] as const
      for (const [url, range] of cases) {
        expect(Option.map(policy.check(new URL(url)), (r) => [r.reason, r.range]), url).toEqual(Option.some(["address", range]))
      }
    }))

  it.effect("names the refused scheme", () =>
    Effect.gen(function*() {
      const policy = yield* policyWith({})
      for (const scheme of ["file", "ftp", "gopher"]) {
        const refusal = Option.getOrThrow(policy.check(new URL(`${scheme}://example.com/x`)))
        expect(refusal.message).toBe(`${scheme}: URLs are refused by the URL policy: only http and https`)
        expect(refusal.target).toBe(`${scheme}://example.com/x`)
      }
    }))

  it.effect("a URL without a port is on 80 (http) or 443 (https) for the allow list", () =>
    Effect.gen(function*() {
      const on80 = yield* policyWith({ allow: ["10.0.0.5:80"] })
      expect(on80.check(new URL("http://10.0.0.5/"))).toEqual(Option.none())
      expect(Option.map(on80.check(new URL("https://10.0.0.5/")), (r) => r.range)).toEqual(Option.some("private"))
      const on443 = yield* policyWith({ allow: ["10.0.0.5:443"] })
      expect(on443.check(new URL("https://10.0.0.5/"))).toEqual(Option.none())
      expect(Option.map(on443.check(new URL("http://10.0.0.5/")), (r) => r.range)).toEqual(Option.some("private"))
    }))
})

describe("UrlPolicy client: lookup and connectors", () => {
  it.effect("a name without a port connects on 80 (http) or 443 (https) for the allow list", () =>
    Effect.gen(function*() {
      const resolve = tableResolve({ "svc.test": ["127.0.0.1"] })
      const outcomes = (allow: string) =>
        Effect.gen(function*() {
          const spy = spyConnector()
          const policy = yield* policyWith({ allow: [allow] }, { resolve, buildConnector: spy.buildConnector })
          const refusals = yield* Effect.forEach(["http://svc.test/", "https://svc.test/"], (url) =>
            Effect.map(send(policy, HttpClientRequest.get(url)), (outcome) =>
              Result.isFailure(outcome) && outcome.failure.cause instanceof UrlRefused ? outcome.failure.cause.range : "passed"))
          return { refusals, passed: spy.passed }
        }).pipe(Effect.scoped)
      expect(yield* outcomes("127.0.0.1:80")).toEqual({ refusals: ["passed", "loopback"], passed: ["http://svc.test"] })
      expect(yield* outcomes("127.0.0.1:443")).toEqual({ refusals: ["loopback", "passed"], passed: ["https://svc.test"] })
    }))

  // live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
  it.live("one connector serves every connection of a port group", () =>
    Effect.gen(function*() {
      // the server closes each connection: every request opens a new one
      const server = yield* testServer((_, response) => {
        response.setHeader("connection", "close")
        response.end("ok")
      })
      let builds = 0
      const buildConnector = (options: Undici.buildConnector.BuildOptions) => {
        builds++
        return Undici.buildConnector(options)
      }
      const policy = yield* policyWith({ allowLoopback: true }, { buildConnector })
      for (const path of ["/1", "/2", "/3"]) {
        expect(Result.map(yield* send(policy, HttpClientRequest.get(`${server.origin}${path}`)), (r) => r.text)).toEqual(Result.succeed("ok"))
      }
      expect(server.requests).toHaveLength(3)
      expect(builds).toBe(1)
    }))

  // live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
  it.live("a resolution error reaches the caller as it is; an empty answer is ENOTFOUND", () =>
    Effect.gen(function*() {
      const resolve: Resolve = (hostname, options, callback) =>
        hostname === "flaky.test"
          ? callback(Object.assign(new Error("getaddrinfo EAI_AGAIN flaky.test"), { code: "EAI_AGAIN" }), [])
          : tableResolve({ "empty.test": [] })(hostname, options, callback)
      const server = yield* testServer((_, response) => response.end("never"))
      const port = new URL(server.origin).port
      const policy = yield* policyWith({ allowLoopback: true }, { resolve })
      const flaky = yield* send(policy, HttpClientRequest.get(`http://flaky.test:${port}/`))
      expect(Result.isFailure(flaky) && flaky.failure.reason._tag).toBe("TransportError")
      expect(Result.isFailure(flaky) && codeIn(flaky.failure)).toBe("EAI_AGAIN")
      const empty = yield* send(policy, HttpClientRequest.get(`http://empty.test:${port}/`))
      expect(Result.isFailure(empty) && codeIn(empty.failure)).toBe("ENOTFOUND")
      const messages = Result.isFailure(empty) ? chain(empty.failure).map((link) => link instanceof Error ? link.message : "") : []
      expect(messages).toContain("getaddrinfo ENOTFOUND empty.test")
      expect(server.requests).toHaveLength(0)
    }))

  // live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
  it.live("the lookup answers both forms: all addresses, and one address when net asks for one", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) => response.end(`at ${request.path}`))
      const port = new URL(server.origin).port
      const resolve = tableResolve({ "here.test": ["127.0.0.1"] })
      // without family autoselection, net asks `lookup` for one address
      const oneAddress = (options: Undici.buildConnector.BuildOptions) =>
        Undici.buildConnector({ ...options, autoSelectFamily: false })
      for (const buildConnector of [oneAddress, Undici.buildConnector]) {
        const outcome = yield* Effect.scoped(Effect.flatMap(
          policyWith({ allowLoopback: true }, { resolve, buildConnector }),
          (policy) => send(policy, HttpClientRequest.get(`http://here.test:${port}/x`))
        ))
        expect(Result.map(outcome, (r) => r.text)).toEqual(Result.succeed("at /x"))
      }
      // and a refused answer is refused in both
      for (const buildConnector of [oneAddress, Undici.buildConnector]) {
        const outcome = yield* Effect.scoped(Effect.flatMap(
          policyWith({}, { resolve, buildConnector }),
          (policy) => send(policy, HttpClientRequest.get(`http://here.test:${port}/y`))
        ))
        expect(Result.isFailure(outcome) && outcome.failure.cause instanceof UrlRefused && outcome.failure.cause.range).toBe("loopback")
      }
      expect(server.requests.map((r) => r.path)).toEqual(["/x", "/x"])
    }))
})

describe("UrlPolicy client: transport errors", () => {
  it.effect("a refused address literal fails as InvalidUrl before the connector is reached", () =>
    Effect.gen(function*() {
      const spy = spyConnector()
      const outcomes = yield* Effect.scoped(Effect.flatMap(
        policyWith({}, { buildConnector: spy.buildConnector }),
        (policy) =>
          Effect.forEach(["http://10.0.0.1/", "http://[::1]:8080/"], (url) => send(policy, HttpClientRequest.get(url)))
      ))
      const refusals = outcomes.map((o) =>
        Result.isFailure(o) && o.failure.cause instanceof UrlRefused ? [o.failure.reason._tag, o.failure.cause.range] : o
      )
      expect(refusals).toEqual([["InvalidUrlError", "private"], ["InvalidUrlError", "loopback"]])
      // no lookup ran: the check came first
      expect(spy.passed).toEqual([])
    }))

  // live clock: a real connection to a port of 127.0.0.1 that a real server has just left
  it.live("a connection refused is a Transport error, not a refusal", () =>
    Effect.gen(function*() {
      // a port nothing listens on any more
      const closedPort = yield* Effect.scoped(Effect.map(testServer(() => undefined), (s) => new URL(s.origin).port))
      const policy = yield* policyWith({ allowLoopback: true })
      const outcome = yield* send(policy, HttpClientRequest.get(`http://127.0.0.1:${closedPort}/`))
      expect(Result.isFailure(outcome) && outcome.failure.reason._tag).toBe("TransportError")
      expect(Result.isFailure(outcome) && outcome.failure.cause instanceof UrlRefused).toBe(false)
      expect(Result.isFailure(outcome) && codeIn(outcome.failure)).toBe("ECONNREFUSED")
    }))

  it.effect("a refusal wrapped in the connector's errors is found; odd cause chains do not trip it", () =>
    Effect.gen(function*() {
      const refusal = new UrlRefused({ target: "x", reason: "address", address: "10.0.0.1", range: "private", message: "refused" })
      const wrapped = new Error("outer", { cause: new Error("inner", { cause: refusal }) })
      const nullCause = new Error("null cause", { cause: null })
      const cyclic: Error & { cause?: unknown } = new Error("cyclic")
      cyclic.cause = cyclic
      const outcomes = yield* Effect.forEach([wrapped, nullCause, cyclic], (error) =>
        Effect.scoped(Effect.flatMap(
          policyWith({ allowLoopback: true }, { buildConnector: failingConnector(error) }),
          (policy) => send(policy, HttpClientRequest.get("http://127.0.0.1:65000/"))
        )))
      const [found, withNull, withCycle] = outcomes.map((o) => Result.isFailure(o) ? o.failure : undefined)
      expect(found?.reason._tag).toBe("TransportError")
      expect(found?.cause).toBe(refusal)
      for (const error of [withNull, withCycle]) {
        expect(error?.reason._tag).toBe("TransportError")
        expect(error?.cause).toBeInstanceOf(TypeError)
      }
      expect(chain(withNull)).toContain(nullCause)
      expect(chain(withCycle)).toContain(cyclic)
    }))
})

describe("UrlPolicy client: bodies", () => {
  // live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
  it.live("sends raw text and bytes, and a byte body; refuses other raw values and streams before connecting", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) => response.end(`${request.method} ${request.body}`))
      const policy = yield* policyWith({ allowLoopback: true })
      const post = HttpClientRequest.post(`${server.origin}/in`)
      const text = yield* send(policy, HttpClientRequest.setBody(post, HttpBody.raw("raw text")))
      expect(Result.map(text, (r) => r.text)).toEqual(Result.succeed("POST raw text"))
      const bytes = yield* send(policy, HttpClientRequest.setBody(post, HttpBody.raw(new TextEncoder().encode("raw bytes"))))
      expect(Result.map(bytes, (r) => r.text)).toEqual(Result.succeed("POST raw bytes"))
      const typed = yield* send(policy, HttpClientRequest.bodyUint8Array(post, new TextEncoder().encode("typed bytes")))
      expect(Result.map(typed, (r) => r.text)).toEqual(Result.succeed("POST typed bytes"))
      expect(server.requests).toHaveLength(3)
      const refused = [
        HttpClientRequest.setBody(post, HttpBody.raw({ not: "bytes" })),
        HttpClientRequest.setBody(post, HttpBody.stream(Stream.make(new TextEncoder().encode("streamed"))))
      ]
      for (const request of refused) {
        const outcome = yield* send(policy, request)
        const reason = Result.isFailure(outcome) ? outcome.failure.reason : undefined
        expect(reason?._tag).toBe("EncodeError")
        if (reason?._tag === "EncodeError") {
          expect(reason.description).toBe("the URL policy's client sends byte and text bodies only")
        }
      }
      expect(server.requests).toHaveLength(3)
    }))

  // live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
  it.live("a stale content-length header does not cut or break the body", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) =>
        response.end(`${request.headers["content-length"]} ${request.body}`)
      )
      const policy = yield* policyWith({ allowLoopback: true })
      const request = HttpClientRequest.post(`${server.origin}/`).pipe(
        HttpClientRequest.bodyText("the whole body"),
        HttpClientRequest.setHeader("content-length", "3")
      )
      expect(Result.map(yield* send(policy, request), (r) => r.text)).toEqual(Result.succeed("14 the whole body"))
    }))
})

describe("UrlPolicy client: redirects", () => {
  // live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
  it.live("301 and 302 turn a POST into a GET without body; other methods keep theirs; 303 keeps HEAD", () =>
    Effect.gen(function*() {
      const target = yield* testServer((request, response) =>
        response.end(`${request.method} ${request.body} ${request.headers["content-type"] ?? "-"}`)
      )
      const origin = yield* testServer((request, response) => {
        const status = Number(request.path.split("/")[1])
        response.writeHead(status, { location: `${target.origin}/in` })
        response.end()
      })
      const policy = yield* policyWith({ allowLoopback: true })
      const hop = (status: number, method: "POST" | "PUT" | "HEAD" | "PATCH") => {
        const request = HttpClientRequest.make(method)(`${origin.origin}/${status}`)
        return send(policy, method === "HEAD" ? request : HttpClientRequest.bodyText(request, "payload", "text/x-test"))
      }
      const cases: ReadonlyArray<readonly [number, "POST" | "PUT" | "HEAD" | "PATCH", string]> = [
        [301, "POST", "GET  -"],
        [302, "POST", "GET  -"],
        [302, "PUT", "PUT payload text/x-test"],
        [301, "PATCH", "PATCH payload text/x-test"],
        [303, "PUT", "GET  -"],
        [307, "POST", "POST payload text/x-test"],
        [308, "PUT", "PUT payload text/x-test"]
      ]
      for (const [status, method, seen] of cases) {
        // the answer's request is the last hop's, as sent
        expect(Result.map(yield* hop(status, method), (r) => [r.method, r.text]), `${status} ${method}`).toEqual(
          Result.succeed([seen.split(" ")[0], seen])
        )
      }
      const head = yield* hop(303, "HEAD")
      expect(Result.map(head, (r) => [r.method, r.status])).toEqual(Result.succeed(["HEAD", 200]))
      expect(target.requests.map((r) => r.method)).toEqual([...cases.map(([, , seen]) => seen.split(" ")[0]), "HEAD"])
    }))

  // live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
  it.live("a redirect to another origin drops the credentials (Authorization, Cookie); one to the same origin keeps them", () =>
    Effect.gen(function*() {
      const other = yield* testServer((_request, response) => response.end("other"))
      const origin = yield* testServer((request, response) => {
        if (request.path === "/away") response.writeHead(302, { location: `${other.origin}/in` })
        else if (request.path === "/here") response.writeHead(302, { location: "/in" })
        else response.writeHead(200)
        response.end("same")
      })
      const policy = yield* policyWith({ allowLoopback: true })
      const request = (to: string) =>
        HttpClientRequest.get(`${origin.origin}${to}`).pipe(
          HttpClientRequest.setHeaders({ authorization: "Bearer secret", cookie: "session=1", "x-trace": "t-1" })
        )
      expect(Result.map(yield* send(policy, request("/away")), (r) => r.text)).toEqual(Result.succeed("other"))
      expect(Result.map(yield* send(policy, request("/here")), (r) => r.text)).toEqual(Result.succeed("same"))
      const [away] = other.requests
      expect([away?.headers.authorization, away?.headers.cookie, away?.headers["x-trace"]]).toEqual([undefined, undefined, "t-1"])
      const here = origin.requests.find((r) => r.path === "/in")
      expect([here?.headers.authorization, here?.headers.cookie]).toEqual(["Bearer secret", "session=1"])
    }))

  // live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
  it.live("a redirect status without Location, or a Location without a redirect status, is the answer", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) => {
        if (request.path === "/no-location") response.writeHead(302)
        else if (request.path === "/ok-with-location") response.writeHead(200, { location: "/elsewhere" })
        else response.writeHead(200)
        response.end(`at ${request.path}`)
      })
      const policy = yield* policyWith({ allowLoopback: true })
      const noLocation = yield* send(policy, HttpClientRequest.get(`${server.origin}/no-location`))
      expect(Result.map(noLocation, (r) => [r.status, r.text])).toEqual(Result.succeed([302, "at /no-location"]))
      const located = yield* send(policy, HttpClientRequest.get(`${server.origin}/ok-with-location`))
      expect(Result.map(located, (r) => [r.status, r.text])).toEqual(Result.succeed([200, "at /ok-with-location"]))
      expect(server.requests.map((r) => r.path)).toEqual(["/no-location", "/ok-with-location"])
    }))

  // live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
  it.live("a Location that is not a URL is a Decode error", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => {
        response.writeHead(302, { location: "http://[not-an-address/" })
        response.end()
      })
      const policy = yield* policyWith({ allowLoopback: true })
      const outcome = yield* send(policy, HttpClientRequest.get(`${server.origin}/`))
      const error = Result.isFailure(outcome) ? outcome.failure : undefined
      expect(error).toBeInstanceOf(HttpClientError.HttpClientError)
      expect(error?.reason).toBeInstanceOf(HttpClientError.DecodeError)
      if (error?.reason._tag === "DecodeError") {
        expect(error.reason.description).toBe("the redirect's Location is not a URL")
        expect(error.reason.response.status).toBe(302)
      }
      expect(server.requests).toHaveLength(1)
    }))

  // live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
  it.live("more than 5 redirects: a StatusCode error naming the hop not followed", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) => {
        response.writeHead(302, { location: `/${Number(request.path.slice(1)) + 1}` })
        response.end()
      })
      const policy = yield* policyWith({ allowLoopback: true })
      const outcome = yield* send(policy, HttpClientRequest.get(`${server.origin}/0`))
      const error = Result.isFailure(outcome) ? outcome.failure : undefined
      expect(error?._tag).toBe("HttpClientError")
      expect(error?.reason._tag).toBe("StatusCodeError")
      const cause = error?.cause
      expect(cause).toBeInstanceOf(TooManyRedirects)
      if (cause instanceof TooManyRedirects) {
        expect(cause.url).toBe(`${server.origin}/6`)
        expect(cause.max).toBe(5)
        expect(cause.message).toBe(`more than 5 redirects (the last one to ${server.origin}/6 was not followed)`)
      }
    }))
})

describe("UrlPolicy client: its connections", () => {
  // live clock: a real HTTP server's sockets, and a bound of real time on their close
  it.live("are closed when the policy's scope closes", () =>
    Effect.gen(function*() {
      const server = yield* trackedServer((_, response) => response.end("kept alive"))
      yield* Effect.scoped(Effect.gen(function*() {
        const policy = yield* policyWith({ allowLoopback: true })
        expect(Result.map(yield* send(policy, HttpClientRequest.get(`${server.origin}/`)), (r) => r.text)).toEqual(
          Result.succeed("kept alive")
        )
      }))
      expect(server.closed).toHaveLength(1)
      // the keep-alive connection is closed by the client within a moment, not when it times out
      // (undici's keep-alive timeout would close it seconds later: 1.5 s leaves room either way)
      const closed = yield* Effect.timeoutOption(Deferred.await(server.closed[0]!), "1500 millis")
      expect(Option.isSome(closed)).toBe(true)
    }))
})
