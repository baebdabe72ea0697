/**
 * The rules of `UrlPolicy` (see `services/UrlPolicy.ts`): which addresses a web tool may
 * connect to, and the errors of a refusal. Pure: no sockets, no DNS.
 *
 * By default only global unicast addresses pass (what `ipaddr.js` calls `"unicast"`): every
 * special range it knows is refused (loopback, RFC 1918 private, link-local, CGNAT,
 * multicast, unspecified, broadcast, unique-local, reserved and documentation ranges, and the
 * IPv6 forms that embed an IPv4 address: NAT64, 6to4, Teredo, SIIT), plus the deprecated
 * IPv4-compatible `::a.b.c.d` and the cloud metadata addresses. An IPv4-mapped IPv6 address
 * (`::ffff:127.0.0.1`) is judged as the IPv4 address it maps.
 *
 * @since 0.1.0
 */
import ipaddr from "ipaddr.js"
import * as Data from "effect/Data"
import * as Option from "effect/Option"
import * as Result from "effect/Result"

/**
 * `net.isIP`, Node's own (the same function), with `node:net` loaded on the first check instead
 * of with this module: a few milliseconds of every start of the command line, most of which
 * check no URL.
 *
 * @since 1.0.0
 * @category utils
 */
export const isIP = (input: string): number => process.getBuiltinModule("node:net").isIP(input)

/**
 * What an application may loosen. Everything not allowed here is refused by default.
 *
 * @since 0.1.0
 * @category models
 */
export interface UrlPolicyRules {
  /** Also allow loopback addresses (127.0.0.0/8, `::1` and their IPv4-mapped forms). Default `false`. */
  readonly allowLoopback?: boolean
  /**
   * Exceptions, each an address (`"10.0.0.5"`, `"::1"`), an address and a port
   * (`"127.0.0.1:8080"`, `"[::1]:8080"`) or a range in CIDR notation (`"10.0.0.0/8"`). A cloud
   * metadata address passes only when an entry names it exactly, not through a range.
   */
  readonly allow?: ReadonlyArray<string>
}

/**
 * Why an address is refused: the name of its range.
 *
 * @since 0.1.0
 * @category models
 */
export type RefusedRange =
  | "loopback"
  | "private"
  | "link-local"
  | "carrier-grade NAT"
  | "multicast"
  | "unspecified"
  | "cloud metadata"
  | "reserved"
  | "unparsable"

/**
 * A URL, or the address a connection would go to, that the policy refuses. Nothing was sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class UrlRefused extends Data.TaggedError("UrlRefused")<{
  /** The URL, or the host and port of the connection. */
  readonly target: string
  /** `scheme`: not http(s); `address`: the address the connection would go to is refused. */
  readonly reason: "scheme" | "address"
  /** The refused address (for `address`). */
  readonly address?: string
  /** Its range (for `address`). */
  readonly range?: RefusedRange
  readonly message: string
}> {}

/**
 * An allow-list entry that is not an address, an address and port, or a CIDR range.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidUrlPolicy extends Data.TaggedError("InvalidUrlPolicy")<{
  readonly entry: string
  readonly message: string
}> {}

/**
 * Cloud metadata services (AWS, GCP, Azure, Oracle, Alibaba, AWS ECS task metadata).
 *
 * @since 0.1.0
 * @category constants
 */
export const CLOUD_METADATA_ADDRESSES: ReadonlyArray<string> = [
  "169.254.169.254",
  "169.254.170.2",
  "fd00:ec2::254",
  "100.100.100.200",
  "192.0.0.192"
]

type Address = ipaddr.IPv4 | ipaddr.IPv6

interface AllowEntry {
  readonly range: readonly [Address, number]
  readonly port: number | undefined
  /** A single address (not a range): may name a cloud metadata address. */
  readonly exact: boolean
}

/** Rules ready to judge addresses. */
export interface CompiledRules {
  readonly allowLoopback: boolean
  readonly allow: ReadonlyArray<AllowEntry>
  /** The ports some allow entry names: a connection on another port can ignore those entries. */
  readonly ports: ReadonlySet<number>
}

/**
 * The cloud metadata addresses, parsed at the first check rather than as the module loads (the
 * first parse builds `ipaddr.js`'s expressions, ~0.8 ms of every start of the command line).
 */
let metadata: ReadonlyArray<Address> | undefined
const metadataAddresses = (): ReadonlyArray<Address> => (metadata ??= CLOUD_METADATA_ADDRESSES.map((a) => ipaddr.parse(a)))

/**
 * Whether an IPv6 address is in the deprecated IPv4-compatible `::/96` (its first 96 bits zero),
 * refused beyond `ipaddr.js`'s special ranges, which count it as unicast.
 */
const isIPv4Compatible = (address: ipaddr.IPv6): boolean => address.parts.slice(0, 6).every((part) => part === 0)

/** An address as it is judged: IPv4-mapped IPv6 as its IPv4 address, without a zone. */
const normalize = (address: string): Option.Option<Address> => {
  try {
    const parsed = ipaddr.parse(address)
    return Option.some(parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed)
  } catch {
    return Option.none()
  }
}

const sameKind = (a: Address, b: Address): boolean => a.kind() === b.kind()

const inRange = (address: Address, [base, bits]: readonly [Address, number]): boolean =>
  sameKind(address, base) && address.match(base, bits)

const isMetadata = (address: Address): boolean =>
  metadataAddresses().some((m) => sameKind(m, address) && m.toNormalizedString() === address.toNormalizedString())

/** The name of the refused range `address` lies in, if it is not a global unicast address. */
const rangeOf = (address: Address): RefusedRange | undefined => {
  if (isMetadata(address)) return "cloud metadata"
  const range: string = address.range()
  switch (range) {
    case "unicast":
      return address instanceof ipaddr.IPv6 && isIPv4Compatible(address) ? "reserved" : undefined
    case "loopback":
    case "multicast":
    case "unspecified":
      return range
    case "private":
    case "uniqueLocal":
      return "private"
    case "linkLocal":
      return "link-local"
    case "carrierGradeNat":
      return "carrier-grade NAT"
    default:
      return "reserved"
  }
}

/** `target` (a host name or an address literal) and the address it connects to, for a message. */
const describe = (target: string, shown: string, range: RefusedRange): string => {
  const what = range === "unparsable" ? "an address that cannot be parsed" : `a ${range} address`
  const where = target === shown
    ? `${target} is`
    : isIP(target) !== 0
    ? `${target} maps to ${shown},`
    : `${target} resolves to ${shown},`
  return `${where} ${what}, which the URL policy refuses`
}

/**
 * Why `address` (as a socket would connect to it, on `port`) is refused, or `None` when it
 * may be connected to. `port` is `undefined` when no allow entry names the connection's port.
 */
export const refusalOf = (
  rules: CompiledRules,
  address: string,
  port: number | undefined,
  target: string
): Option.Option<UrlRefused> => {
  const refuse = (range: RefusedRange, shown: string) =>
    Option.some(
      new UrlRefused({
        target,
        reason: "address",
        address: shown,
        range,
        message: describe(target, shown, range)
      })
    )
  const parsed = normalize(address)
  if (Option.isNone(parsed)) return refuse("unparsable", address)
  const ip = parsed.value
  const range = rangeOf(ip)
  if (range === undefined) return Option.none()
  const allowed = rules.allow.some((entry) =>
    (entry.port === undefined || entry.port === port) && inRange(ip, entry.range) &&
    (range !== "cloud metadata" || entry.exact)
  )
  if (allowed || (range === "loopback" && rules.allowLoopback)) return Option.none()
  return refuse(range, ip.toString())
}

/** `"host:port"` or `"[v6]:port"` split; the port must be 1 to 65535. */
const splitPort = (entry: string): { readonly host: string; readonly port: number | undefined } => {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry)
  if (bracketed !== null) return { host: bracketed[1] ?? "", port: bracketed[2] === undefined ? undefined : Number(bracketed[2]) }
  const v4 = /^([0-9.]+):(\d{1,5})$/.exec(entry)
  if (v4 !== null) return { host: v4[1] ?? "", port: Number(v4[2]) }
  return { host: entry, port: undefined }
}

const isStrictAddress = (host: string): boolean =>
  ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.IPv6.isValid(host)

const compileEntry = (entry: string): Result.Result<AllowEntry, InvalidUrlPolicy> => {
  const invalid = (why: string) =>
    Result.fail(new InvalidUrlPolicy({ entry, message: `invalid URL policy allow entry "${entry}": ${why}` }))
  const trimmed = entry.trim()
  if (trimmed.includes("/")) {
    const slash = trimmed.indexOf("/")
    const host = trimmed.slice(0, slash)
    const bits = trimmed.slice(slash + 1)
    if (!isStrictAddress(host) || !/^\d{1,3}$/.test(bits) || !ipaddr.isValidCIDR(trimmed)) {
      return invalid("expected a range like 10.0.0.0/8 or fd00::/8")
    }
    const [base, prefix] = ipaddr.parseCIDR(trimmed)
    return Result.succeed({ range: [base, prefix], port: undefined, exact: false })
  }
  const split = splitPort(trimmed)
  if (!isStrictAddress(split.host)) {
    return invalid("expected an IP address, an address and port (127.0.0.1:8080, [::1]:8080) or a CIDR range")
  }
  if (split.port !== undefined && (split.port < 1 || split.port > 65535)) return invalid("the port must be 1 to 65535")
  const address = ipaddr.parse(split.host)
  const ip = address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() ? address.toIPv4Address() : address
  // the whole address: 32 bits, or 128
  return Result.succeed({ range: [ip, ip.toByteArray().length * 8], port: split.port, exact: true })
}

/** Compiles the rules, or fails with the first invalid allow entry. */
export const compileRules = (rules: UrlPolicyRules): Result.Result<CompiledRules, InvalidUrlPolicy> =>
  Result.map(Result.all((rules.allow ?? []).map(compileEntry)), (allow) => ({
    allowLoopback: rules.allowLoopback === true,
    allow,
    ports: new Set(allow.flatMap((entry) => (entry.port === undefined ? [] : [entry.port])))
  }))

/** The default rules: only global unicast addresses. */
export const DEFAULT_RULES: CompiledRules = { allowLoopback: false, allow: [], ports: new Set() }

/** The default rules plus loopback: for tests that reach their own 127.0.0.1 servers. */
export const LOOPBACK_RULES: CompiledRules = { allowLoopback: true, allow: [], ports: new Set() }
