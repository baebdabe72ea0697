/**
 * The rules of `UrlPolicy` (pure: no socket, no DNS): how allow entries are read (addresses,
 * `address:port`, `[v6]:port`, CIDR ranges, IPv4-mapped forms, surrounding spaces), which
 * entries are refused and why, the port an entry applies to, and the messages of a refusal.
 * The connections themselves are in test/tools/ported/web/urlPolicy.test.ts and
 * test/layers/UrlPolicy.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Option } from "effect"
import {
  type CompiledRules,
  compileRules,
  DEFAULT_RULES,
  refusalOf,
  type UrlPolicyRules
} from "../../src/layers/urlPolicyRules.js"

const compiled = (rules: UrlPolicyRules): CompiledRules => Result.getOrThrow(compileRules(rules))

/** The range `address` is refused as (connecting on `port`), or `None` when it may be connected to. */
const refusedAs = (rules: CompiledRules, address: string, port?: number) =>
  Option.map(refusalOf(rules, address, port, address), (refusal) => refusal.range)

/** The message of the entry's `InvalidUrlPolicy`, or `undefined` when the entry compiles. */
const invalidEntry = (entry: string): string | undefined =>
  Result.match(compileRules({ allow: [entry] }), { onFailure: (error) => error.message, onSuccess: () => undefined })

describe("UrlPolicy rules: allow entries", () => {
  it("an address without a port allows it on every port, also one another entry names", () => {
    const rules = compiled({ allow: ["10.0.0.5", "127.0.0.1:8080"] })
    expect(rules.ports).toEqual(new Set([8080]))
    expect(refusedAs(rules, "10.0.0.5", 8080)).toEqual(Option.none())
    expect(refusedAs(rules, "10.0.0.5", undefined)).toEqual(Option.none())
    // the entry is one address, not its neighbours
    expect(refusedAs(rules, "10.0.0.6", 8080)).toEqual(Option.some("private"))
  })

  it("a bracketed IPv6 address, with or without a port", () => {
    const any = compiled({ allow: ["[::1]"] })
    expect(any.ports).toEqual(new Set())
    expect(refusedAs(any, "::1", 80)).toEqual(Option.none())
    expect(refusedAs(any, "::1", undefined)).toEqual(Option.none())
    const onPort = compiled({ allow: ["[fd00::7]:8443"] })
    expect(onPort.ports).toEqual(new Set([8443]))
    expect(refusedAs(onPort, "fd00::7", 8443)).toEqual(Option.none())
    expect(refusedAs(onPort, "fd00::7", undefined)).toEqual(Option.some("private"))
  })

  it("an exact IPv6 address is that address only, an IPv4 one too", () => {
    const rules = compiled({ allow: ["fd00::1", "10.0.0.5"] })
    expect(refusedAs(rules, "fd00::1")).toEqual(Option.none())
    expect(refusedAs(rules, "fd00::2")).toEqual(Option.some("private"))
    expect(refusedAs(rules, "fd00:0:0:1::1")).toEqual(Option.some("private"))
    expect(refusedAs(rules, "10.0.0.5")).toEqual(Option.none())
    expect(refusedAs(rules, "10.0.0.4")).toEqual(Option.some("private"))
    expect(refusedAs(rules, "::ffff:10.0.0.5")).toEqual(Option.none())
  })

  it("an IPv4-mapped entry allows the IPv4 address it maps", () => {
    for (const entry of ["::ffff:10.0.0.5", "[::ffff:10.0.0.5]:8080"]) {
      const rules = compiled({ allow: [entry] })
      expect(refusedAs(rules, "10.0.0.5", entry.endsWith(":8080") ? 8080 : undefined), entry).toEqual(Option.none())
      expect(refusedAs(rules, "::ffff:10.0.0.5", entry.endsWith(":8080") ? 8080 : undefined), entry).toEqual(Option.none())
    }
  })

  it("spaces around an entry are ignored", () => {
    const rules = compiled({ allow: [" 10.0.0.5 ", "\t192.168.0.0/16\n", " 127.0.0.1:8080 "] })
    expect(refusedAs(rules, "10.0.0.5")).toEqual(Option.none())
    expect(refusedAs(rules, "192.168.44.1")).toEqual(Option.none())
    expect(refusedAs(rules, "127.0.0.1", 8080)).toEqual(Option.none())
  })

  it("ports 1 and 65535 are valid; 0 and 65536 are not", () => {
    expect(invalidEntry("127.0.0.1:1")).toBeUndefined()
    expect(invalidEntry("127.0.0.1:65535")).toBeUndefined()
    expect(invalidEntry("[::1]:65535")).toBeUndefined()
    expect(compiled({ allow: ["127.0.0.1:1", "127.0.0.1:65535"] }).ports).toEqual(new Set([1, 65535]))
    expect(invalidEntry("127.0.0.1:0")).toBe("invalid URL policy allow entry \"127.0.0.1:0\": the port must be 1 to 65535")
    expect(invalidEntry("[::1]:65536")).toBe("invalid URL policy allow entry \"[::1]:65536\": the port must be 1 to 65535")
  })

  it("refuses entries with text around the address or the port", () => {
    const notAnAddress = "expected an IP address, an address and port (127.0.0.1:8080, [::1]:8080) or a CIDR range"
    for (const entry of ["junk[::1]:80", "x[::1]", "[::1]:80x", "abc10.0.0.1:80", "10.0.0.1:80x", "10.0.0.1:123456", "[::1]:123456"]) {
      expect(invalidEntry(entry), entry).toBe(`invalid URL policy allow entry "${entry}": ${notAnAddress}`)
    }
  })

  it("a range must be a strict address and a plain prefix length", () => {
    const notARange = "expected a range like 10.0.0.0/8 or fd00::/8"
    // each of these is a CIDR range to ipaddr.js; the policy wants them written plainly
    for (const entry of ["127.1/8", "0x7f.0.0.1/8", "10.0.0.0/0008", "10.0.0.0/0016"]) {
      expect(invalidEntry(entry), entry).toBe(`invalid URL policy allow entry "${entry}": ${notARange}`)
    }
    for (const entry of ["10.0.0.0/33", "fd00::/129", "10.0.0.0/x8"]) {
      expect(invalidEntry(entry), entry).toBe(`invalid URL policy allow entry "${entry}": ${notARange}`)
    }
    expect(invalidEntry("10.0.0.0/08")).toBeUndefined()
    expect(refusedAs(compiled({ allow: ["10.0.0.0/08"] }), "10.200.0.1")).toEqual(Option.none())
  })

  it("a range never opens a cloud metadata address in it; only an entry naming the address does", () => {
    const ranged = compiled({ allow: ["169.254.0.0/16", "fd00::/8", "0.0.0.0/0"] })
    expect(refusedAs(ranged, "169.254.1.1")).toEqual(Option.none())
    expect(refusedAs(ranged, "169.254.169.254")).toEqual(Option.some("cloud metadata"))
    expect(refusedAs(ranged, "fd00::1")).toEqual(Option.none())
    expect(refusedAs(ranged, "fd00:ec2::254")).toEqual(Option.some("cloud metadata"))
    const exact = compiled({ allow: ["169.254.169.254", "[fd00:ec2::254]:80"] })
    expect(refusedAs(exact, "169.254.169.254")).toEqual(Option.none())
    expect(refusedAs(exact, "fd00:ec2::254", 80)).toEqual(Option.none())
    // the exact entry is that address only
    expect(refusedAs(exact, "169.254.170.2")).toEqual(Option.some("cloud metadata"))
  })

  it("allowLoopback: true from the rules allows loopback; anything else does not", () => {
    const loopback = compiled({ allowLoopback: true })
    expect(loopback.allowLoopback).toBe(true)
    expect(refusedAs(loopback, "127.0.0.1")).toEqual(Option.none())
    expect(refusedAs(loopback, "::1")).toEqual(Option.none())
    expect(refusedAs(loopback, "10.0.0.1")).toEqual(Option.some("private"))
    for (const rules of [{}, { allowLoopback: false }]) {
      expect(refusedAs(compiled(rules), "127.0.0.1")).toEqual(Option.some("loopback"))
    }
  })
})

describe("UrlPolicy rules: refusals", () => {
  it("says when an address cannot be parsed, and which range a refused address is in", () => {
    const unparsable = Option.getOrThrow(refusalOf(DEFAULT_RULES, "999.1.1.1", undefined, "weird.test"))
    expect(unparsable.range).toBe("unparsable")
    expect(unparsable.address).toBe("999.1.1.1")
    expect(unparsable.message).toBe(
      "weird.test resolves to 999.1.1.1, an address that cannot be parsed, which the URL policy refuses"
    )
    const reserved = Option.getOrThrow(refusalOf(DEFAULT_RULES, "240.0.0.1", undefined, "240.0.0.1"))
    expect(reserved.message).toBe("240.0.0.1 is a reserved address, which the URL policy refuses")
    const v4compatible = Option.getOrThrow(refusalOf(DEFAULT_RULES, "::7f00:1", undefined, "old.test"))
    expect(v4compatible.message).toBe("old.test resolves to ::7f00:1, a reserved address, which the URL policy refuses")
  })

  it("names each refused range: link-local, carrier-grade NAT, private, loopback, multicast, unspecified, cloud metadata", () => {
    const ranges: ReadonlyArray<readonly [string, string]> = [
      ["169.254.10.1", "link-local"],
      ["fe80::1", "link-local"],
      ["100.64.0.1", "carrier-grade NAT"],
      ["100.127.255.254", "carrier-grade NAT"],
      ["192.168.1.1", "private"],
      ["fd12::1", "private"],
      ["127.0.0.2", "loopback"],
      ["224.0.0.1", "multicast"],
      ["0.0.0.0", "unspecified"],
      ["169.254.169.254", "cloud metadata"]
    ]
    for (const [address, range] of ranges) {
      expect(refusedAs(DEFAULT_RULES, address), address).toEqual(Option.some(range))
    }
    // just outside the carrier-grade NAT block (100.64.0.0/10) is global
    expect(refusedAs(DEFAULT_RULES, "100.128.0.1")).toEqual(Option.none())
    expect(Option.getOrThrow(refusalOf(DEFAULT_RULES, "169.254.10.1", undefined, "169.254.10.1")).message).toBe(
      "169.254.10.1 is a link-local address, which the URL policy refuses"
    )
  })

  it("an address literal that maps to another says so; a name that resolves to one says that", () => {
    expect(Option.getOrThrow(refusalOf(DEFAULT_RULES, "127.0.0.1", undefined, "::ffff:127.0.0.1")).message).toBe(
      "::ffff:127.0.0.1 maps to 127.0.0.1, a loopback address, which the URL policy refuses"
    )
    expect(Option.getOrThrow(refusalOf(DEFAULT_RULES, "127.0.0.1", undefined, "localhost")).message).toBe(
      "localhost resolves to 127.0.0.1, a loopback address, which the URL policy refuses"
    )
  })

  it("global unicast IPv6 addresses outside ::/96 pass", () => {
    for (const address of ["2606:4700::1111", "2a00:1450:4001:80b::200e", "::1:0:0:1"]) {
      expect(refusedAs(DEFAULT_RULES, address), address).toEqual(Option.none())
    }
  })
})
