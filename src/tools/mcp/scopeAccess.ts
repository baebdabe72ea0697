/**
 * An OAuth token's scopes onto the gate pipeline, for one HTTP request of the MCP server: the
 * read scope admits read-only tools, the write scope every tool.
 *
 * Two things carry it, and both are the request's only:
 *
 * - the per-request server sees a registry whose `tools/list` shows only the tools the token
 *   admits (a read-only token lists only read-only tools);
 * - every call runs with the `oauthScope` gate as a gate of that call (`ExecuteOptions.gates`),
 *   asked before the installed gates (mode, policy, confirmation, rate limit, which then still
 *   apply). A call beyond the token's scopes is refused by it (`POLICY_VETO`, saying which scope
 *   is missing) before any handler runs or rate-limit token is taken, so `explain` and the audit
 *   record show that gate's refusal; the HTTP layer answers such a call 403
 *   `insufficient_scope`. The token's subject is the call's `rateLimitKey` (each subject its
 *   own bucket), unless the caller gave one.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import { PolicyVeto } from "../../domain/errors.js"
import * as Gate from "../../domain/Gate.js"
import type { ToolRegistryService } from "../../services/ToolRegistry.js"
import type { ToolSystemService } from "../../services/ToolSystem.js"

/**
 * The name of the scope gate in `explain` and the audit record.
 *
 * @internal
 */
export const SCOPE_GATE = "oauthScope"

/**
 * What one request's token admits, and whether a call of it was refused for its scopes.
 *
 * @internal
 */
export interface ScopeGrant {
  readonly scopes: ReadonlyArray<string>
  readonly readScope: string
  readonly writeScope: string
  /** The token's `sub`: the calls' rate-limit key. */
  readonly subject: string | undefined
  /** Set when the scope gate refused a call of this request (not in a dry run). */
  refused: string | undefined
}

const writes = (grant: ScopeGrant): boolean => grant.scopes.includes(grant.writeScope)

/**
 * Whether `grant` admits a tool (`readOnly`: its spec's).
 *
 * @internal
 */
export const admits = (grant: ScopeGrant, readOnly: boolean): boolean =>
  writes(grant) || (readOnly && grant.scopes.includes(grant.readScope))

/**
 * The scope gate of `grant`'s calls.
 *
 * @internal
 */
export const scopeGate = (grant: ScopeGrant): Gate.Gate =>
  Gate.make(SCOPE_GATE, ({ dryRun, tool }) => {
    if (admits(grant, tool.spec.readOnly)) {
      return Gate.pass(writes(grant) ? `the token has "${grant.writeScope}"` : `a read-only tool; the token has "${grant.readScope}"`)
    }
    const reason = tool.spec.readOnly
      ? `the bearer token has no MCP scope ("${grant.readScope}" or "${grant.writeScope}")`
      : `the bearer token lacks "${grant.writeScope}", which a tool with side effects needs`
    const refusal = Gate.refuse(new PolicyVeto({ tool: tool.name, reason }))
    return dryRun ? refusal : Effect.sync(() => {
      grant.refused = reason
      return refusal
    })
  })

/**
 * `system` for one request: every call with `grant`'s scope gate first and, unless the caller
 * gave one, the token's subject as its rate-limit key; its registry lists only what `grant`
 * admits.
 *
 * @internal
 */
export const scopedSystem = (system: ToolSystemService, grant: ScopeGrant): ToolSystemService => {
  const gate = scopeGate(grant)
  const registry = scopedRegistry(system.registry, grant)
  return {
    ...system,
    registry,
    execute: (name, args, options) =>
      system.execute(name, args, {
        ...options,
        gates: [gate, ...(options?.gates ?? [])],
        rateLimitKey: options?.rateLimitKey ?? grant.subject
      }),
    explain: (name, args, options) =>
      system.explain(name, args, {
        ...options,
        gates: [gate, ...(options?.gates ?? [])],
        rateLimitKey: options?.rateLimitKey ?? grant.subject
      })
  }
}

/**
 * `registry` listing only what `grant` admits.
 *
 * @internal
 */
export const scopedRegistry = (registry: ToolRegistryService, grant: ScopeGrant): ToolRegistryService => ({
  ...registry,
  list: (options) => Effect.map(registry.list(options), (tools) => tools.filter((tool) => admits(grant, tool.spec.readOnly))),
  specs: (options) => Effect.map(registry.specs(options), (specs) => specs.filter((spec) => admits(grant, spec.readOnly)))
})
