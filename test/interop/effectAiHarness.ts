/**
 * What the `effect/ai` interop tests share: the tool system and its call handler over a
 * workspace, a scripted language model (`LanguageModel.make` over a list of responses, no
 * network), the tool-call parts it answers with, the next request of an approval round, and an
 * approval asked and redeemed as `generateText` does it (`askApproval`, `handOver`).
 *
 * The system holds only the builtin file tools (`list_files`, `read_file`, `write_file`, given
 * as `tools` with `builtins: false`), plus the tools a test adds.
 */
import { Effect, Layer, type Schema, Stream } from "effect"
import type { EffectAiToolkit } from "../../src/interop/effectAi.js"
import { LanguageModel, Prompt, type Response } from "effect/ai"
import type { Tool } from "../../src/domain/Tool.js"
import type { ConfirmationGate } from "../../src/services/ConfirmationGate.js"
import { ToolCallHandler } from "../../src/services/ToolCallHandler.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import { listFiles } from "../../src/tools/builtin/listFiles.js"
import { readFile } from "../../src/tools/builtin/readFile.js"
import { writeFile } from "../../src/tools/builtin/writeFile.js"

/** `ToolCallHandler.layer` over a node tool system with the workspace `ws`, both provided. */
export const handlerIn = (
  ws: string,
  options: {
    readonly tools?: ReadonlyArray<Tool<never>>
    readonly confirmation?: Layer.Layer<ConfirmationGate>
  } = {}
) =>
  ToolCallHandler.layer.pipe(
    Layer.provideMerge(ToolSystem.layerNode({
      builtins: false,
      tools: [listFiles, readFile, writeFile, ...(options.tools ?? [])],
      workspace: Workspace.layerFixed(ws),
      ...(options.confirmation === undefined ? {} : { confirmation: options.confirmation })
    }))
  )

/**
 * A language model that answers its requests with `turns`, one after the other (the last one
 * again once they run out), and records what each request gave it.
 */
export const scriptedModel = (
  turns: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>,
  seen: Array<LanguageModel.ProviderOptions> = []
) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          seen.push(options)
          return [...(turns[Math.min(seen.length, turns.length) - 1] ?? [])]
        }),
      streamText: () => Stream.die(new Error("streaming is not scripted"))
    })
  )

/**
 * A language model that streams its answers to `streamText` requests from `turns`, one after the
 * other (the last one again once they run out), each ending with a `tool-calls` finish.
 */
export const scriptedStream = (turns: ReadonlyArray<ReadonlyArray<Response.StreamPartEncoded>>) => {
  let requests = 0
  return Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: () => Effect.die(new Error("only streaming is scripted")),
      streamText: () =>
        Stream.suspend(() => {
          requests += 1
          const parts = turns[Math.min(requests, turns.length) - 1] ?? []
          return Stream.fromIterable<Response.StreamPartEncoded>([
            ...parts,
            { type: "finish", reason: "tool-calls", usage: { inputTokens: {}, outputTokens: {} } }
          ])
        })
    })
  )
}

export const toolCall = (id: string, name: string, params: unknown): Response.ToolCallPartEncoded => ({
  type: "tool-call",
  id,
  name,
  params,
  providerExecuted: false
})

/** The approval requests of a response, as `{ approvalId, toolCallId }`. */
export const approvalRequests = (content: ReadonlyArray<Response.AnyPart>) =>
  content.flatMap((part) =>
    part.type === "tool-approval-request" ? [{ approvalId: part.approvalId, toolCallId: part.toolCallId }] : []
  )

/** The next request of an approval round: the conversation so far, the response, and the person's answers. */
export const answered = (
  prompt: Prompt.RawInput,
  content: ReadonlyArray<Response.AnyPart>,
  answers: ReadonlyArray<{ readonly approvalId: string; readonly approved: boolean; readonly reason?: string }>
): Prompt.Prompt =>
  Prompt.concat(
    Prompt.concat(Prompt.make(prompt), Prompt.fromResponseParts(content)),
    [{ role: "tool", content: answers.map((answer) => ({ type: "tool-approval-response" as const, ...answer })) }]
  )

/** Asks for the approval of a call, as `generateText` does before it hands the call over. */
export const askApproval = (ai: EffectAiToolkit, name: string, params: unknown, toolCallId: string) => {
  const needsApproval = ai.toolkit.tools[name]?.needsApproval
  if (typeof needsApproval !== "function") return Effect.die(new Error(`${name} needs no approval`))
  const answer = needsApproval(params, { toolCallId, messages: [] })
  return typeof answer === "boolean" ? Effect.succeed(answer) : answer
}

/** Hands a call over to the toolkit's handler, as `generateText` does once it is approved. */
export const handOver = (ai: EffectAiToolkit, name: string, params: Schema.Json, toolCallId?: string) =>
  Effect.map(
    Effect.flatMap(
      toolCallId === undefined
        ? ai.withHandler.handle(name, params)
        : ai.withHandler.handle(name, params, toolCallId),
      Stream.runCollect
    ),
    (results) => results.map((r) => ({ isFailure: r.isFailure, result: r.result }))
  )

/** The answer to a call no approval of `effect/ai` opened. */
export const declinedText = (tool: string, approvalOf = tool) =>
  `Error [CONFIRMATION_REQUIRED]: the user declined to run "${tool}": ` +
  `no approval of this call of "${approvalOf}" came through the tool approval of effect/ai ` +
  "(an approval counts once, for the call it was asked for: same tool-call id, tool and arguments)\n" +
  "Do not retry this call. Ask the user how to proceed, or take another approach."
