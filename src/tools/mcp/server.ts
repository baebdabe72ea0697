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
 * Effect 4: the request handlers run with `Effect.runPromiseWith` on the context `makeMcpServer`
 * ran in (Effect 3: a `Runtime`); the close waits on a `Latch`.
 *
 * @since 0.1.0
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Latch from "effect/Latch"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { AgentMode } from "../../domain/AgentMode.js"
import { pathTraversalOf } from "../../domain/errors.js"
import { toMcpTool } from "../../domain/exports.js"
import { readableText } from "../../domain/readableJson.js"
import { showName, showText } from "../../domain/shownText.js"
import type { ToolExecutionResult } from "../../domain/ToolExecutionResult.js"
import { McpBridge } from "../../services/McpBridge.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { ToolSystem } from "../../services/ToolSystem.js"
import { VERSION } from "../../version.js"

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
}

/**
 * Longest rendering of a call's arguments in a confirmation question: longer arguments are cut
 * and the question says so and how long they are (what a person approves is what runs).
 *
 * @internal
 */
export const MAX_QUESTION_ARGS = 20_000

/**
 * The confirmation question for a call: all of its arguments (or plainly cut, with their
 * length), bidi overrides and control characters shown as escapes.
 *
 * @internal
 */
export const confirmQuestion = (name: string, args: Readonly<Record<string, unknown>>): string =>
  // (arguments are an object parsed from JSON: their text is never undefined)
  `Run the tool "${showName(name)}" with ${showText(JSON.stringify(args), MAX_QUESTION_ARGS)}?`

/** `read_file` as `Read file`. */
const titleOf = (name: string): string => {
  const words = name.replace(/[_-]+/g, " ").trim()
  return words.length === 0 ? name : words[0]?.toUpperCase() + words.slice(1)
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
 * An MCP `Server` (not yet connected) whose tools are the registry's. Its handlers run in
 * the calling context; connect it to any transport (`serveMcp` does, and waits).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMcpServer = (
  options: McpServeOptions = {}
): Effect.Effect<Server, never, ToolSystem | ToolRegistry> =>
  Effect.gen(function*() {
    const system = yield* ToolSystem
    const registry = yield* ToolRegistry
    const context = yield* Effect.context<never>()
    const confirmation = options.confirmation ?? "ask"
    const bridged = Option.isSome(yield* Effect.serviceOption(McpBridge))
    const server = new Server(
      { name: options.name ?? "effect-tool-system", version: options.version ?? VERSION },
      { capabilities: { tools: bridged ? { listChanged: true } : {} } }
    )

    const listTools = Effect.map(
      registry.specs({ tags: options.tags, mode: options.mode }),
      (specs) => ({
        tools: specs.map((spec) => {
          const tool = toMcpTool(spec)
          const title = titleOf(spec.name)
          return { ...tool, title, annotations: { ...tool.annotations, title } }
        })
      })
    )

    /** Asks the client; `true` only for an explicit yes. */
    const ask = (name: string, args: Readonly<Record<string, unknown>>): Effect.Effect<boolean> => {
      if (server.getClientCapabilities()?.elicitation?.form === undefined) return Effect.succeed(false)
      return Effect.tryPromise((signal) =>
        server.elicitInput(
          {
            mode: "form",
            message: confirmQuestion(name, args),
            requestedSchema: {
              type: "object",
              properties: { confirm: { type: "boolean", title: "Run it", description: `Run "${name}" now` } },
              required: ["confirm"]
            }
          },
          { signal }
        )
      ).pipe(
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
      confirm: boolean
    ): Effect.Effect<{ readonly result: ToolExecutionResult | undefined; readonly reply: CallToolResult }> =>
      Effect.matchCauseEffect(system.execute(name, args, { mode: options.mode, confirm }), {
        onSuccess: (result) => Effect.succeed({ result, reply: toCallToolResult(result) }),
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

    const callTool = (name: string, args: Readonly<Record<string, unknown>>): Effect.Effect<CallToolResult> =>
      Effect.flatMap(run(name, args, confirmation === "auto"), ({ reply, result }) => {
        if (result?.errorCode !== "CONFIRMATION_REQUIRED" || confirmation !== "ask") return Effect.succeed(reply)
        return Effect.flatMap(
          ask(name, args),
          (yes) => (yes ? Effect.map(run(name, args, true), (second) => second.reply) : Effect.succeed(reply))
        )
      })

    const runPromise = Effect.runPromiseWith(context)
    server.setRequestHandler(ListToolsRequestSchema, () => runPromise(listTools))
    server.setRequestHandler(
      CallToolRequestSchema,
      (request, extra) => runPromise(callTool(request.params.name, request.params.arguments ?? {}), { signal: extra.signal })
    )
    return server
  })

/**
 * Serves the registry on `transport` until the transport closes (or the fiber is
 * interrupted, which closes it).
 *
 * @since 0.1.0
 * @category running
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
 * import { Effect } from "effect"
 * import { AgentMode, ToolSystem } from "effect-tool-system"
 * import { serveMcp } from "effect-tool-system/mcp"
 *
 * const main = () =>
 *   Effect.runPromise(serveMcp(new StdioServerTransport(), { mode: AgentMode.Explore }).pipe(
 *     Effect.provide(ToolSystem.layerNode())
 *   ))
 * ```
 */
export const serveMcp = (
  transport: Transport,
  options: McpServeOptions = {}
): Effect.Effect<void, McpServeError, ToolSystem | ToolRegistry> =>
  Effect.scoped(Effect.gen(function*() {
    const server = yield* makeMcpServer(options)
    const closed = yield* Latch.make(false)
    server.onclose = () => closed.openUnsafe()
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => server.connect(transport),
        catch: (error) => new McpServeError({ reason: error instanceof Error ? error.message : String(error) })
      }),
      () =>
        Effect.tryPromise(() => server.close()).pipe(
          Effect.catch((error) => Effect.logWarning(`Closing the MCP server failed: ${String(error.cause)}`))
        )
    )
    const bridge = yield* Effect.serviceOption(McpBridge)
    if (Option.isSome(bridge)) {
      yield* bridge.value.events.pipe(
        Stream.runForEach(() =>
          Effect.tryPromise(() => server.sendToolListChanged()).pipe(
            Effect.catch((error) => Effect.logWarning(`Telling the MCP client of changed tools failed: ${String(error.cause)}`))
          )
        ),
        Effect.forkScoped
      )
    }
    yield* closed.await
  }))
