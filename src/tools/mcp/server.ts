/**
 * The registry served as an MCP server: `tools/list` from our specs (MCP shape, with
 * `title`, `readOnlyHint` and `destructiveHint`), `tools/call` through `ToolSystem.execute`
 * in the chosen mode, so every gate applies.
 *
 * A call that needs confirmation asks the client through MCP elicitation when the client
 * supports it (`confirmation: "ask"`, the default), is confirmed up front (`"auto"`, the
 * command line's `--yes`), or is refused (`"refuse"`); a refused or failed call is an
 * `isError: true` result whose text starts with its error code (`CONFIRMATION_REQUIRED:
 * ...`). A workspace escape (the `PATH_TRAVERSAL` defect) is an error result for that call,
 * naming the path and never a file's content, and the server keeps serving.
 *
 * Bridged tools keep their rug-pull hold: a held proxy's call is an `MCP_TOOL_CHANGED: ...`
 * error result, and `tools/list` shows the approved definition. When an `McpBridge` is in
 * the context, the server declares `tools.listChanged` and `serveMcp` tells the client
 * (`notifications/tools/list_changed`) whenever a bridged server's tools change.
 *
 * Results (`resultContent.ts`): a tool with an object `success` schema is listed with its
 * `outputSchema` and answers `structuredContent` beside the text; a text longer than
 * `maxResultChars` is sent cut, its whole kept in a file under `.mcp-results/` and linked.
 *
 * Both protocol eras (MCP SDK v2, `@modelcontextprotocol/server`): a 2025-11-25 connection
 * opens with `initialize` and confirmation asks through elicitation (a server-to-client
 * request); a 2026-07-28 request is stateless (`server/discover`, no session) and confirmation
 * is an `input_required` result whose elicitation the client answers by retrying the call with
 * its `inputResponses` (the answer is the client's: as in 2025, a client may answer yes on its
 * own); the question and its form are confirmation.ts's. `serveMcp` (serve.ts) serves either
 * era on one transport (the era is pinned by the first message); `serveMcpHttp` (http.ts)
 * serves both over Streamable HTTP.
 *
 * Effect 4: the request handlers run with `Effect.runPromiseWith` on the context the factory
 * was made in.
 *
 * @since 0.1.0
 */
import {
  type CallToolResult,
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  type McpServerFactory,
  Server,
  type ServerContext
} from "@modelcontextprotocol/server"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AgentMode } from "../../domain/AgentMode.js"
import { pathTraversalOf } from "../../domain/errors.js"
import { readableText } from "../../domain/readableJson.js"
import { showName } from "../../domain/shownText.js"
import type { ToolExecutionResult } from "../../domain/ToolExecutionResult.js"
import type { ProgressListener } from "../../services/CallProgress.js"
import { McpBridge } from "../../services/McpBridge.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { ToolSystem } from "../../services/ToolSystem.js"
import { VERSION } from "../../version.js"
import { asksInForms, CONFIRM_KEY, confirmForm } from "./confirmation.js"
import { mcpToolOf } from "./listing.js"
import { makeResultAnswer } from "./resultContent.js"
import type { McpResultFilesOptions } from "./resultFiles.js"

/**
 * The server could not be connected to its transport.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpServeError extends Data.TaggedError("McpServeError")<{ readonly reason: string }> {
  override get message(): string {
    return `Cannot serve MCP: ${this.reason}`
  }
}

/**
 * How a served call that needs confirmation is handled.
 *
 * @since 0.1.0
 * @category models
 */
export type McpConfirmation = "ask" | "auto" | "refuse"

/**
 * What the served registry shows and how its calls run.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpServeOptions {
  /** The agent mode of every call (and of `tools/list`). Default: the default mode. */
  readonly mode?: AgentMode | undefined
  /**
   * `ask` (default): through MCP elicitation when the client supports it, else refused;
   * `auto`: every call is confirmed (`--yes`); `refuse`: never confirmed.
   */
  readonly confirmation?: McpConfirmation | undefined
  /** Only tools with one of these tags. */
  readonly tags?: ReadonlyArray<string> | undefined
  /** The server's name in `initialize`. Default `effect-tool-system`. */
  readonly name?: string | undefined
  readonly version?: string | undefined
  /**
   * The longest text of a result sent, in characters (UTF-16 code units). Default 100,000;
   * `Infinity` for no cap. A longer result is sent cut, its whole text kept in a fresh file
   * under `.mcp-results/` in the workspace and linked (`resource_link`), except in a read-only
   * mode, which writes nothing (see `resultContent.ts`).
   */
  readonly maxResultChars?: number | undefined
  /**
   * The bound on `.mcp-results/`: at most `maxFiles` result files (default 100) and `maxBytes`
   * bytes of them (default 256 MiB); the oldest of ours are deleted after each write, off the
   * call's path (see `resultFiles.ts`).
   */
  readonly resultFiles?: McpResultFilesOptions | undefined
}

const textResult = (text: string, isError: boolean): CallToolResult =>
  isError ? { content: [{ type: "text", text }], isError: true } : { content: [{ type: "text", text }] }

/**
 * A result of ours in MCP's shape: a string output as it is, no output as an empty text, any
 * other output as readable JSON (a bigint, a `Map`, a cycle too: never a failed reply).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toCallToolResult = (result: ToolExecutionResult): CallToolResult => {
  if (result.success) {
    const output = result.output
    return textResult(output === undefined ? "" : readableText(output, 2), false)
  }
  return textResult(`${result.errorCode}: ${result.error}`, true)
}

/**
 * The listener of a `tools/call` whose request carries `_meta.progressToken`: each update the
 * call's channel lets through goes to the client as `notifications/progress` with that token,
 * related to the request (over Streamable HTTP it rides the POST's response stream). The send
 * starts as the listener runs, so the channel's last update goes out before the result. A
 * call confirmed and run again keeps to the token's progress (it only increases). A send that
 * fails (the client went away) is the client's loss, logged at debug level.
 */
const progressListenerOf = (ctx: ServerContext): ProgressListener | undefined => {
  // `_meta` is the protocol's own field of a request (not a private member)
  const { _meta: meta } = ctx.mcpReq
  const progressToken = meta?.progressToken
  if (progressToken === undefined) return undefined
  let last = -1
  return (update) => {
    if (!(update.progress > last)) return Effect.void
    last = update.progress
    return Effect.tryPromise(() => ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, ...update } })).pipe(
      Effect.catch((error) => Effect.logDebug(`MCP progress notification not sent: ${String(error.cause)}`))
    )
  }
}

/**
 * How the factory's servers are made: what `makeMcpServerFactory` takes beyond the options.
 *
 * @internal
 */
export interface McpFactoryHooks {
  /** Called with each server the factory makes (e.g. to tell it of changed tools). */
  readonly made?: ((server: Server) => void) | undefined
  /**
   * Added to the refusal of a 2025-era call that needed confirmation and whose client could not
   * be asked (over stateless HTTP: why, and what to do instead).
   */
  readonly legacyRefusalNote?: string | undefined
}

/**
 * A factory of MCP `Server`s (SDK v2) whose tools are the registry's, for either era: the
 * factory is what SDK v2's serving entries take (`createMcpHandler`, `serveStdio`). Its
 * handlers run in the context the factory was made in.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeMcpServerFactory = (
  options: McpServeOptions = {},
  hooks: McpFactoryHooks = {}
): Effect.Effect<McpServerFactory, never, ToolSystem | ToolRegistry> =>
  Effect.gen(function*() {
    const system = yield* ToolSystem
    const registry = yield* ToolRegistry
    const context = yield* Effect.context<never>()
    const confirmation = options.confirmation ?? "ask"
    const bridged = Option.isSome(yield* Effect.serviceOption(McpBridge))
    const runPromise = Effect.runPromiseWith(context)
    const answer = yield* makeResultAnswer({
      mode: options.mode,
      maxResultChars: options.maxResultChars,
      resultFiles: options.resultFiles
    })

    const listTools = Effect.map(
      registry.list({ tags: options.tags, mode: options.mode }),
      (tools) => ({ tools: tools.map(mcpToolOf) })
    )

    /** 2025: asks the client (a server-to-client request); `true` only for an explicit yes. */
    const ask = (
      server: Server,
      ctx: ServerContext,
      name: string,
      args: Readonly<Record<string, unknown>>
    ): Effect.Effect<boolean> => {
      if (!asksInForms(server)) return Effect.succeed(false)
      // related to the call: over HTTP sessions the question rides the call's own stream (not only a GET stream)
      const related = { relatedRequestId: ctx.mcpReq.id }
      return Effect.tryPromise((signal) => ctx.mcpReq.elicitInput(confirmForm(name, args), { signal, ...related })).pipe(
        Effect.map((answer) => answer.action === "accept" && answer.content?.confirm === true),
        Effect.catch((error) =>
          Effect.as(Effect.logWarning(`MCP confirmation of "${showName(name)}" failed: ${String(error.cause)}`), false)
        )
      )
    }

    /** One call; `result` is `undefined` when the call died (a workspace escape). */
    const run = (
      name: string,
      args: unknown,
      confirm: boolean,
      onProgress: ProgressListener | undefined
    ): Effect.Effect<{ readonly result: ToolExecutionResult | undefined; readonly reply: CallToolResult }> =>
      Effect.matchCauseEffect(system.execute(name, args, { mode: options.mode, confirm, onProgress }), {
        onSuccess: (result) => Effect.map(answer(result, toCallToolResult(result)), (reply) => ({ result, reply })),
        onFailure: (cause) => {
          const escape = pathTraversalOf(cause)
          if (Option.isSome(escape)) {
            const { path, reason } = escape.value
            const text = `PATH_TRAVERSAL: the path ${JSON.stringify(path)} is outside the workspace (${reason})`
            return Effect.succeed({ result: undefined, reply: textResult(text, true) })
          }
          if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
          return Effect.as(
            Effect.logError(`MCP call of "${showName(name)}" died`, cause),
            { result: undefined, reply: textResult("TOOL_ERROR: the call failed unexpectedly", true) }
          )
        }
      })

    /** 2025: run; when it needs confirmation and may ask, ask (elicitation) and run again on a yes. */
    const callLegacy = (
      server: Server,
      ctx: ServerContext,
      name: string,
      args: Readonly<Record<string, unknown>>,
      onProgress: ProgressListener | undefined
    ): Effect.Effect<CallToolResult> =>
      Effect.flatMap(run(name, args, confirmation === "auto", onProgress), ({ reply, result }) => {
        if (result?.errorCode !== "CONFIRMATION_REQUIRED" || confirmation !== "ask") return Effect.succeed(reply)
        const note = hooks.legacyRefusalNote
        if (note !== undefined && !asksInForms(server)) {
          return Effect.succeed(textResult(`${result.errorCode}: ${result.error} ${note}`, true))
        }
        return Effect.flatMap(
          ask(server, ctx, name, args),
          (yes) => (yes ? Effect.map(run(name, args, true, onProgress), (second) => second.reply) : Effect.succeed(reply))
        )
      })

    /**
     * 2026: a retried call that carries the client's answer runs confirmed on a yes (refused on
     * anything else); a first call that needs confirmation is answered `input_required`, when the
     * request says its client takes form elicitation.
     */
    const callModern = (
      server: Server,
      ctx: ServerContext,
      name: string,
      args: Readonly<Record<string, unknown>>,
      onProgress: ProgressListener | undefined
    ): Effect.Effect<CallToolResult | InputRequiredResult> => {
      const answer = confirmation === "ask" ? inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY) : undefined
      if (answer?.kind === "elicit") {
        const yes = answer.action === "accept" && answer.content?.confirm === true
        return Effect.map(run(name, args, yes, onProgress), (call) => call.reply)
      }
      return Effect.map(run(name, args, confirmation === "auto", onProgress), ({ reply, result }) => {
        if (result?.errorCode !== "CONFIRMATION_REQUIRED" || confirmation !== "ask" || !asksInForms(server)) {
          return reply
        }
        return inputRequired({ inputRequests: { [CONFIRM_KEY]: inputRequired.elicit(confirmForm(name, args)) } })
      })
    }

    return (made) => {
      const server = new Server(
        { name: options.name ?? "effect-tool-system", version: options.version ?? VERSION },
        { capabilities: { tools: bridged ? { listChanged: true } : {} } }
      )
      server.setRequestHandler("tools/list", () => runPromise(listTools))
      server.setRequestHandler("tools/call", (request, ctx) => {
        const { name } = request.params
        const args = request.params.arguments ?? {}
        const onProgress = progressListenerOf(ctx)
        const call = made.era === "modern"
          ? callModern(server, ctx, name, args, onProgress)
          : callLegacy(server, ctx, name, args, onProgress)
        return runPromise(call, { signal: ctx.mcpReq.signal })
      })
      hooks.made?.(server)
      return server
    }
  })

/**
 * An MCP `Server` (not yet connected) whose tools are the registry's, for a 2025-era
 * connection (`initialize`); connect it to any transport. `serveMcp` serves both eras.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMcpServer = (
  options: McpServeOptions = {}
): Effect.Effect<Server, never, ToolSystem | ToolRegistry> =>
  Effect.flatMap(makeMcpServerFactory(options), (factory) =>
    Effect.promise(async () => {
      const made = await factory({ era: "legacy" })
      return made instanceof Server ? made : made.server
    }))
