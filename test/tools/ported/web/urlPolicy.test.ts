/**
 * `UrlPolicy`: the address rules (pure), the checks of the guarded client before any socket
 * exists (a spy connector that never opens one), and the client against real servers on
 * 127.0.0.1: refused by default, by name, through redirects; allowed through the test layers.
 * No traffic ever leaves loopback: every non-loopback address here is either refused before
 * the connector runs, or met by the spy connector, which opens no socket.
 */
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as Undici from "@effect/platform-node/Undici"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option, Result } from "effect"
import { isIP } from "node:net"
import { makeUrlPolicy, type Resolve, type UrlPolicyInternals } from "../../../../src/layers/UrlPolicy.js"
import { compileRules, DEFAULT_RULES, LOOPBACK_RULES, refusalOf } from "../../../../src/layers/urlPolicyRules.js"
import {
  InvalidUrlPolicy,
  TooManyRedirects,
  UrlPolicy,
  type UrlPolicyRules,
  UrlRefused
} from "../../../../src/services/UrlPolicy.js"
import * as TestUrlPolicy from "../../../../src/testing/TestUrlPolicy.js"
import { testServer } from "../../../helpers/httpServer.js"
import { loopbackOnlyPolicy } from "./support.js"

/** A connector that opens no socket: it runs the guarded `lookup` as `net.connect` would, records, and fails. */
const spyConnector = () => {
  const attempts: Array<{ readonly host: string; readonly addresses: ReadonlyArray<string> }> = []
  const buildConnector = (build: Undici.buildConnector.BuildOptions): Undici.buildConnector.connector =>
  (options, callback) => {
    const noSocket = () => callback(new Error("spy connector: no socket is opened in this test"), null)
    const lookup = "lookup" in build ? build.lookup : undefined
    if (isIP(options.hostname) !== 0 || lookup === undefined) {
      attempts.push({ host: options.hostname, addresses: [options.hostname] })
      return noSocket()
    }
    lookup(options.hostname, { all: true }, (error, addresses) => {
      if (error !== null) return callback(error, null)
      attempts.push({
        host: options.hostname,
        addresses: Array.isArray(addresses) ? addresses.map((a) => a.address) : [addresses]
      })
      noSocket()
    })
  }
  return { attempts, buildConnector }
}

/** A resolver answering from a table (a name answers each of its lists in turn, then the last again). */
const fakeResolve = (table: Record<string, ReadonlyArray<ReadonlyArray<string>>>): Resolve => {
  const calls = new Map<string, number>()
  return (hostname, _options, callback) => {
    const answers = table[hostname]
    if (answers === undefined) {
      return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), [])
    }
    const n = calls.get(hostname) ?? 0
    calls.set(hostname, n + 1)
    const list = answers[Math.min(n, answers.length - 1)] ?? []
    callback(null, list.map((address) => ({ address, family: isIP(address) })))
  }
}

const policyLayer = (rules: UrlPolicyRules, internals: UrlPolicyInternals = {}) =>
  Layer.effect(UrlPolicy, Effect.flatMap(Effect.fromResult(compileRules(rules)), (compiled) => makeUrlPolicy(compiled, internals)))

/** GETs `url` through the policy's client: the body text, or the error. */
const get = (url: string, request = HttpClientRequest.get(url)) =>
  Effect.flatMap(UrlPolicy, (policy) => policy.client.execute(request)).pipe(
    Effect.flatMap((response) => Effect.map(response.text, (text) => ({ status: response.status, text, url: response.request.url }))),
    Effect.result
  )

/** The `UrlRefused` an outcome failed with. */
const refusalIn = (outcome: Result.Result<unknown, { readonly cause?: unknown }>): UrlRefused | undefined =>
  Result.isFailure(outcome) && outcome.failure.cause instanceof UrlRefused ? outcome.failure.cause : undefined

describe("UrlPolicy rules", () => {
  const refused = (address: string, rules = DEFAULT_RULES, port?: number) =>
    Option.map(refusalOf(rules, address, port, address), (r) => r.range)

  it("refuses every special range by default, IPv4-mapped and embedded forms included", () => {
    const cases: Record<string, string> = {
      "127.0.0.1": "loopback",
      "127.255.255.254": "loopback",
      "::1": "loopback",
      "::ffff:127.0.0.1": "loopback",
      "::ffff:7f00:1": "loopback",
      "10.0.0.1": "private",
      "172.16.5.4": "private",
      "192.168.1.1": "private",
      "fc00::1": "private",
      "::ffff:192.168.0.1": "private",
      "169.254.1.1": "link-local",
      "fe80::1": "link-local",
      "fe80::1%eth0": "link-local",
      "100.64.0.1": "carrier-grade NAT",
      "224.0.0.1": "multicast",
      "ff02::1": "multicast",
      "0.0.0.0": "unspecified",
      "0.1.2.3": "unspecified",
      "::": "unspecified",
      "169.254.169.254": "cloud metadata",
      "169.254.170.2": "cloud metadata",
      "fd00:ec2::254": "cloud metadata",
      "100.100.100.200": "cloud metadata",
      "192.0.0.192": "cloud metadata",
      "::ffff:169.254.169.254": "cloud metadata",
      "255.255.255.255": "reserved",
      "192.0.2.1": "reserved",
      "198.18.0.1": "reserved",
      "240.0.0.1": "reserved",
      "64:ff9b::a00:1": "reserved",
      "2002:7f00:1::": "reserved",
      "2001::1": "reserved",
      "::7f00:1": "reserved",
      "not-an-address": "unparsable"
    }
    for (const [address, range] of Object.entries(cases)) expect(refused(address), address).toEqual(Option.some(range))
    for (const address of ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect(refused(address), address).toEqual(Option.none())
    }
  })

  it("says what the address is, and what a name resolved to", () => {
    const literal = Option.getOrThrow(refusalOf(DEFAULT_RULES, "10.0.0.1", undefined, "10.0.0.1"))
    expect(literal.message).toBe("10.0.0.1 is a private address, which the URL policy refuses")
    const named = Option.getOrThrow(refusalOf(DEFAULT_RULES, "127.0.0.1", undefined, "localhost"))
    expect(named.message).toBe("localhost resolves to 127.0.0.1, a loopback address, which the URL policy refuses")
    const mapped = Option.getOrThrow(refusalOf(DEFAULT_RULES, "::ffff:7f00:1", undefined, "::ffff:7f00:1"))
    expect(mapped.message).toBe("::ffff:7f00:1 maps to 127.0.0.1, a loopback address, which the URL policy refuses")
  })

  it("allowLoopback allows loopback only, never private or metadata addresses", () => {
    for (const address of ["127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"]) {
      expect(refused(address, LOOPBACK_RULES), address).toEqual(Option.none())
    }
    for (const address of ["10.0.0.1", "169.254.169.254", "0.0.0.0", "fd00:ec2::254"]) {
      expect(Option.isSome(refused(address, LOOPBACK_RULES)), address).toBe(true)
    }
  })

  it("an allow list admits its addresses, ports and ranges; metadata only when named exactly", () => {
    const rules = Result.getOrThrow(
      compileRules({ allow: ["127.0.0.1:8080", "[::1]:9090", "10.1.0.0/16", "fd00::/8", "169.254.170.2"] })
    )
    expect(rules.ports).toEqual(new Set([8080, 9090]))
    expect(refused("127.0.0.1", rules, 8080)).toEqual(Option.none())
    expect(refused("::ffff:127.0.0.1", rules, 8080)).toEqual(Option.none())
    expect(refused("127.0.0.1", rules, undefined)).toEqual(Option.some("loopback"))
    expect(refused("127.0.0.2", rules, 8080)).toEqual(Option.some("loopback"))
    expect(refused("::1", rules, 9090)).toEqual(Option.none())
    expect(refused("::1", rules, 8080)).toEqual(Option.some("loopback"))
    expect(refused("10.1.200.3", rules)).toEqual(Option.none())
    expect(refused("10.2.0.1", rules)).toEqual(Option.some("private"))
    expect(refused("fd12::1", rules)).toEqual(Option.none())
    // inside fd00::/8, but a metadata address passes only when named
    expect(refused("fd00:ec2::254", rules)).toEqual(Option.some("cloud metadata"))
    expect(refused("169.254.170.2", rules)).toEqual(Option.none())
  })

  it("refuses allow entries that are not addresses, address:port or CIDR ranges", () => {
    for (const entry of ["localhost", "127.1", "0x7f.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", "10.0.0.0/33", "[::1]:x", "*", ""]) {
      const result = compileRules({ allow: [entry] })
      expect(Result.isFailure(result), entry).toBe(true)
      if (Result.isFailure(result)) expect(result.failure).toBeInstanceOf(InvalidUrlPolicy)
    }
  })

  it.effect("validateRules names a bad entry; layerAllowList dies with it", () =>
    Effect.gen(function*() {
      const checked = UrlPolicy.validateRules({ allow: ["10.0.0.0/8", "localhost:80"] })
      expect(Result.isFailure(checked) && checked.failure.message).toBe("invalid URL policy allow entry \"localhost:80\": " +
        "expected an IP address, an address and port (127.0.0.1:8080, [::1]:8080) or a CIDR range")
      expect(UrlPolicy.validateRules({ allow: ["10.0.0.0/8"] })).toEqual(Result.succeed({ allow: ["10.0.0.0/8"] }))
      const exit = yield* Effect.exit(Effect.provide(UrlPolicy, UrlPolicy.layerAllowList(["localhost:80"])))
      expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
      if (Exit.isFailure(exit)) expect(String(Cause.squash(exit.cause))).toContain("invalid URL policy allow entry \"localhost:80\"")
    }))
})

// no socket and no clock: it.effect
describe("UrlPolicy client, before any socket (spy connector)", () => {
  it.effect("refuses address literals before the connector is even called", () =>
    Effect.gen(function*() {
      const spy = spyConnector()
      const urls = [
        "http://127.0.0.1/",
        "http://127.1:8080/",
        "http://0x7f.1/",
        "http://2130706433/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://10.0.0.1/",
        "http://192.168.0.1:8443/",
        "https://172.16.0.1/",
        "http://100.64.1.1/",
        "http://[::ffff:10.0.0.1]/",
        "http://0.0.0.0/",
        "http://224.0.0.251/"
      ]
      for (const url of urls) {
        const outcome = yield* get(url)
        const refusal = refusalIn(outcome)
        expect(refusal?.reason, url).toBe("address")
      }
      expect(spy.attempts).toEqual([])
    }).pipe(Effect.provide(policyLayer({}, { buildConnector: spyConnector().buildConnector }))))

  it.effect("judges names on what they resolve to, at the socket's lookup: each new connection again", () =>
    Effect.gen(function*() {
      const spy = spyConnector()
      const resolve = fakeResolve({
        "intranet.test": [["10.1.2.3"]],
        "mapped.test": [["::ffff:192.168.1.10"]],
        "mixed.test": [["93.184.216.34", "127.0.0.1"]],
        // DNS rebinding: public for the first connection, metadata for the next
        "rebind.test": [["93.184.216.34"], ["169.254.169.254"]]
      })
      yield* Effect.gen(function*() {
        const intranet = refusalIn(yield* get("http://intranet.test/"))
        expect(intranet?.message).toBe("intranet.test resolves to 10.1.2.3, a private address, which the URL policy refuses")
        expect(refusalIn(yield* get("http://mapped.test/"))?.range).toBe("private")
        expect(refusalIn(yield* get("http://mixed.test/"))?.address).toBe("127.0.0.1")
        // the first connection passes the lookup (the spy records it and opens nothing)
        const first = yield* get("http://rebind.test/")
        expect(Result.isFailure(first) && refusalIn(first) === undefined).toBe(true)
        const second = refusalIn(yield* get("http://rebind.test/"))
        expect(second?.range).toBe("cloud metadata")
      }).pipe(Effect.provide(policyLayer({}, { resolve, buildConnector: spy.buildConnector })))
      expect(spy.attempts).toEqual([{ host: "rebind.test", addresses: ["93.184.216.34"] }])
    }))

  it.effect("refuses every scheme but http and https", () =>
    Effect.gen(function*() {
      for (const url of ["file:///etc/passwd", "data:text/plain,hi", "ftp://example.com/", "gopher://example.com/", "ws://example.com/", "javascript:alert(1)"]) {
        const outcome = yield* get(url)
        const refusal = refusalIn(outcome)
        expect(refusal?.reason, url).toBe("scheme")
        expect(Result.isFailure(outcome) && outcome.failure.reason._tag).toBe("InvalidUrlError")
      }
    }).pipe(Effect.provide(policyLayer({}, { buildConnector: spyConnector().buildConnector }))))

  it.effect("check() refuses schemes and literals, and leaves names to the connection", () =>
    Effect.gen(function*() {
      const policy = yield* UrlPolicy
      expect(Option.map(policy.check(new URL("http://[::1]:80/")), (r) => r.range)).toEqual(Option.some("loopback"))
      expect(Option.map(policy.check(new URL("file:///x")), (r) => r.reason)).toEqual(Option.some("scheme"))
      expect(policy.check(new URL("http://localhost/"))).toEqual(Option.none())
      expect(policy.check(new URL("https://8.8.8.8/"))).toEqual(Option.none())
    }).pipe(Effect.provide(UrlPolicy.layer)))
})

// live clock: a real HTTP server on 127.0.0.1 (Node sockets, undici's own timers)
describe("UrlPolicy client against real servers on 127.0.0.1", () => {
  it.live("the default layer refuses 127.0.0.1 and localhost; the server sees nothing", () =>
    Effect.gen(function*() {
      const server = yield* testServer((_, response) => response.end("secret"))
      const port = new URL(server.origin).port
      for (const url of [`${server.origin}/`, `http://localhost:${port}/`, `http://127.1:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`]) {
        const refusal = refusalIn(yield* get(url).pipe(Effect.provide(UrlPolicy.layer)))
        expect(refusal?.range, url).toBe("loopback")
      }
      expect(server.requests).toHaveLength(0)
    }))

  it.live("layerAllowLoopback reaches the test server, by address and by name", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) => response.end(`hello ${request.path}`))
      const port = new URL(server.origin).port
      const byAddress = yield* get(`${server.origin}/a`).pipe(Effect.provide(TestUrlPolicy.layerAllowLoopback))
      expect(byAddress).toEqual(Result.succeed({ status: 200, text: "hello /a", url: `${server.origin}/a` }))
      const byName = yield* get(`http://localhost:${port}/b`).pipe(Effect.provide(TestUrlPolicy.layerAllowLoopback))
      expect(Result.map(byName, (r) => r.text)).toEqual(Result.succeed("hello /b"))
    }))

  it.live("a redirect from an allowed host to a refused one is refused, and never followed", () =>
    Effect.gen(function*() {
      const other = yield* testServer((_, response) => response.end("internal"))
      const otherPort = new URL(other.origin).port
      const targets: Record<string, string> = {
        "/to-127-0-0-2": `http://127.0.0.2:${otherPort}/`,
        "/to-localhost": `http://localhost:${otherPort}/`,
        "/to-other-port": `${other.origin}/`,
        "/to-metadata": "http://169.254.169.254/latest/meta-data/",
        "/to-file": "file:///etc/passwd",
        "/to-self": "/landed"
      }
      const allowed = yield* testServer((request, response) => {
        const location = targets[request.path]
        if (location === undefined) return response.end(`landed on ${request.path}`)
        response.writeHead(302, { location })
        response.end()
      })
      const allowList = [`127.0.0.1:${new URL(allowed.origin).port}`]
      // sockets to loopback only, under the allow list's check: no traffic elsewhere even if the check broke
      const outcomes = yield* Effect.forEach(Object.keys(targets), (path) => get(`${allowed.origin}${path}`)).pipe(
        Effect.provide(loopbackOnlyPolicy({ allow: allowList }))
      )
      expect(outcomes.map((o) => refusalIn(o)?.reason ?? "followed")).toEqual(["address", "address", "address", "address", "scheme", "followed"])
      expect(refusalIn(outcomes[1]!)?.message).toBe(
        "localhost resolves to 127.0.0.1, a loopback address, which the URL policy refuses"
      )
      expect(Result.map(outcomes[5]!, (r) => r.text)).toEqual(Result.succeed("landed on /landed"))
      // the public layer, with the real connector: the loopback targets
      const publicLayer = yield* Effect.forEach(["/to-127-0-0-2", "/to-localhost", "/to-other-port"], (path) =>
        get(`${allowed.origin}${path}`)).pipe(Effect.provide(UrlPolicy.layerAllowList(allowList)))
      expect(publicLayer.map((o) => refusalIn(o)?.address)).toEqual(["127.0.0.2", "127.0.0.1", "127.0.0.1"])
      expect(other.requests).toHaveLength(0)
      expect(allowed.requests.map((r) => r.path)).toEqual([
        ...Object.keys(targets),
        "/landed",
        "/to-127-0-0-2",
        "/to-localhost",
        "/to-other-port"
      ])
    }))

  it.live("follows at most 5 redirects", () =>
    Effect.gen(function*() {
      const server = yield* testServer((request, response) => {
        const n = Number(request.path.slice(1))
        response.writeHead(301, { location: `/${n + 1}` })
        response.end()
      })
      const outcome = yield* get(`${server.origin}/0`).pipe(Effect.provide(TestUrlPolicy.layerAllowLoopback))
      expect(Result.isFailure(outcome) && outcome.failure.cause).toBeInstanceOf(TooManyRedirects)
      expect(server.requests.map((r) => r.path)).toEqual(["/0", "/1", "/2", "/3", "/4", "/5"])
    }))

  it.live("a redirect to another origin drops credentials; 303 turns a POST into a GET, 307 keeps it", () =>
    Effect.gen(function*() {
      const target = yield* testServer((request, response) => response.end(`${request.method} ${request.body}`))
      const origin = yield* testServer((request, response) => {
        const to: Record<string, [number, string]> = {
          "/cross": [302, `${target.origin}/in`],
          "/same": [302, "/in"],
          "/see-other": [303, `${target.origin}/in`],
          "/temporary": [307, `${target.origin}/in`]
        }
        const hop = to[request.path]
        if (hop === undefined) return response.end(`same-origin ${request.headers.authorization ?? "none"}`)
        response.writeHead(hop[0], { location: hop[1] })
        response.end()
      })
      const withAuth = (path: string, method: "GET" | "POST" = "GET") => {
        const base = HttpClientRequest.make(method)(`${origin.origin}${path}`).pipe(
          HttpClientRequest.setHeaders({ authorization: "Bearer s3cret", cookie: "session=1" })
        )
        return get("", method === "POST" ? HttpClientRequest.bodyText(base, "payload") : base)
      }
      yield* Effect.gen(function*() {
        expect(Result.map(yield* withAuth("/cross"), (r) => r.text)).toEqual(Result.succeed("GET "))
        expect(target.requests[0]?.headers.authorization).toBeUndefined()
        expect(target.requests[0]?.headers.cookie).toBeUndefined()
        expect(Result.map(yield* withAuth("/same"), (r) => r.text)).toEqual(Result.succeed("same-origin Bearer s3cret"))
        expect(Result.map(yield* withAuth("/see-other", "POST"), (r) => r.text)).toEqual(Result.succeed("GET "))
        expect(target.requests[1]?.headers["content-type"]).toBeUndefined()
        expect(Result.map(yield* withAuth("/temporary", "POST"), (r) => r.text)).toEqual(Result.succeed("POST payload"))
      }).pipe(Effect.provide(TestUrlPolicy.layerAllowLoopback))
    }))
})
