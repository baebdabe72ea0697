/**
 * The web tools' tests: a tool system with the given tools over a workspace, under a URL
 * policy (by default `TestUrlPolicy.layerAllowLoopback`, so the tests reach their own 127.0.0.1
 * servers), and `loopbackOnlyPolicy` for the tests that name other addresses.
 */
import * as Undici from "@effect/platform-node/Undici"
import { Effect, Layer } from "effect"
import ipaddr from "ipaddr.js"
import { isIP } from "node:net"
import { type ExecuteOptions, ToolSystem, Workspace } from "../../../../src/index.js"
import { makeUrlPolicy } from "../../../../src/layers/UrlPolicy.js"
import { compileRules } from "../../../../src/layers/urlPolicyRules.js"
import { UrlPolicy, type UrlPolicyRules } from "../../../../src/services/UrlPolicy.js"
import * as TestUrlPolicy from "../../../../src/testing/TestUrlPolicy.js"
import type { Tool } from "../../../../src/tools/define.js"

/** What `callTool` runs under. */
export interface WebSystem {
  readonly dir: string
  readonly tools: ReadonlyArray<Tool<UrlPolicy | Workspace>>
  readonly policy?: Layer.Layer<UrlPolicy>
}

/** The graph: the given tools (no builtins) over `dir`, the policy provided. */
export const webSystem = ({ dir, policy = TestUrlPolicy.layerAllowLoopback, tools }: WebSystem) =>
  ToolSystem.layerNode({ builtins: false, tools, workspace: Workspace.layerFixed(dir), urlPolicy: policy })

/** Runs one call in a system of its own. */
export const callTool = (system: WebSystem, name: string, args: unknown, options?: ExecuteOptions) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute(name, args, options)).pipe(Effect.provide(webSystem(system)))

/** Whether a connection to `host` stays on this machine: a loopback literal or `localhost`. */
const isLoopbackHost = (host: string): boolean => {
  if (host === "localhost") return true
  if (isIP(host) === 0) return false
  const address = ipaddr.process(host)
  return address.range() === "loopback"
}

/**
 * undici's connector, but one that opens sockets to loopback only: a harness under the
 * policy's own check, so that a broken check fails the test instead of sending traffic
 * to a private or metadata address.
 */
const loopbackOnlyConnector = (build: Undici.buildConnector.BuildOptions): Undici.buildConnector.connector => {
  const real = Undici.buildConnector(build)
  return (options, callback) =>
    isLoopbackHost(options.hostname)
      ? real(options, callback)
      : callback(new Error(`test harness: no connection to ${options.hostname}, only to loopback`), null)
}

/** A policy with `rules` (default: the default rules) whose sockets can only go to loopback. */
export const loopbackOnlyPolicy = (rules: UrlPolicyRules = {}): Layer.Layer<UrlPolicy> =>
  Layer.effect(
    UrlPolicy,
    Effect.flatMap(Effect.orDie(Effect.fromResult(compileRules(rules))), (compiled) =>
      makeUrlPolicy(compiled, { buildConnector: loopbackOnlyConnector }))
  )
