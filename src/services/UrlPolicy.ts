/**
 * The `UrlPolicy` service: its interface, its tag and its layers.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Result from "effect/Result"
import { makeUrlPolicy } from "../layers/UrlPolicy.js"
import {
  compileRules,
  DEFAULT_RULES,
  type InvalidUrlPolicy,
  type UrlPolicyRules,
  type UrlRefused
} from "../layers/urlPolicyRules.js"

export { MAX_REDIRECTS, TooManyRedirects } from "../layers/UrlPolicy.js"
export {
  CLOUD_METADATA_ADDRESSES,
  InvalidUrlPolicy,
  type RefusedRange,
  type UrlPolicyRules,
  UrlRefused
} from "../layers/urlPolicyRules.js"

/**
 * The `UrlPolicy` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface UrlPolicyService {
  /**
   * The refusal `url` meets before any connection: a scheme other than http(s), or an address
   * literal the policy refuses. `None` does not mean allowed: a name is judged when the
   * client connects, on the addresses it resolves to.
   */
  readonly check: (url: URL) => Option.Option<UrlRefused>
  /**
   * An `HttpClient` under the policy. A refused URL or address fails the request with an
   * `HttpClientError` whose reason (an `InvalidUrlError` or `TransportError`) has the
   * `UrlRefused` as its `cause`, before anything is sent; redirects are
   * followed (at most `MAX_REDIRECTS`, else a `StatusCodeError` reason whose `cause` is
   * `TooManyRedirects`), each hop checked again; answers are decompressed as they stream.
   * Bodies: empty, bytes or text.
   */
  readonly client: HttpClient.HttpClient
}

/**
 * Where the web tools may connect (against SSRF: a model asking a tool to fetch
 * `http://169.254.169.254/` or an internal service). Only http(s); by default no loopback,
 * private, link-local, CGNAT, multicast, unspecified, reserved or cloud metadata address, nor
 * the IPv6 forms that embed one (IPv4-mapped `::ffff:127.0.0.1`, NAT64, 6to4, Teredo).
 *
 * The service's `client` enforces it where it cannot be dodged: on the address each socket
 * connects to, after DNS resolution (a name like `localhost`, a rebinding DNS answer, `127.1`
 * or `0x7f.1` all end up judged as the address they connect to), and again on every redirect,
 * which the client follows by hand (at most 5). See `layers/UrlPolicy.ts`.
 *
 * @since 0.1.0
 * @category services
 *
 * @example
 * ```ts
 * import { ToolSystem, UrlPolicy } from "effect-tool-system"
 *
 * // the web tools may also reach one service of the local network
 * const system = ToolSystem.layerNode({ urlPolicy: UrlPolicy.layerAllowList(["10.0.0.5:8080"]) })
 * ```
 */
export class UrlPolicy extends Context.Service<UrlPolicy, UrlPolicyService>()("effect-tool-system/UrlPolicy") {
  /** The default: only global unicast addresses, http(s) only. */
  static readonly layer: Layer.Layer<UrlPolicy> = Layer.effect(UrlPolicy, makeUrlPolicy(DEFAULT_RULES))

  /**
   * The default loosened by `rules`. An invalid allow entry is a defect (`InvalidUrlPolicy`),
   * found when the layer is built, as a bad tool definition is: check rules that come from
   * configuration with `UrlPolicy.validateRules` first.
   */
  static readonly layerWith = (rules: UrlPolicyRules): Layer.Layer<UrlPolicy> =>
    Layer.effect(
      UrlPolicy,
      Effect.flatMap(Effect.orDie(Effect.fromResult(compileRules(rules))), (compiled) => makeUrlPolicy(compiled))
    )

  /**
   * The default plus exceptions: addresses (`"10.0.0.5"`), addresses with a port
   * (`"127.0.0.1:8080"`, `"[::1]:8080"`) or CIDR ranges (`"10.0.0.0/8"`). An invalid entry is
   * a defect, as in `layerWith`.
   */
  static readonly layerAllowList = (entries: ReadonlyArray<string>): Layer.Layer<UrlPolicy> =>
    UrlPolicy.layerWith({ allow: entries })

  /** `rules` as they are, or the first invalid allow entry: for rules read from configuration. */
  static readonly validateRules = (rules: UrlPolicyRules): Result.Result<UrlPolicyRules, InvalidUrlPolicy> =>
    Result.map(compileRules(rules), () => rules)
}
