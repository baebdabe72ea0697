/**
 * What `effectAi.test.ts` and `effectAi.slow.test.ts` share: the tool system and its call handler
 * over a workspace, a scripted language model and the tool-call parts it answers with.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Response from "@effect/ai/Response"
import { Effect, Layer, Stream } from "effect"
import { ToolCallHandler } from "../../src/services/ToolCallHandler.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"

/** `ToolCallHandler.layer` over a node tool system with the workspace `ws`, both provided. */
export const handlerIn = (ws: string) =>
  ToolCallHandler.layer.pipe(
    Layer.provideMerge(ToolSystem.layerNode({ workspace: Workspace.layerFixed(ws) }))
  )

/** A language model that answers every request with the same parts, and records what it was given. */
export const scriptedModel = (parts: Array<Response.PartEncoded>, seen: Array<LanguageModel.ProviderOptions> = []) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) => Effect.sync(() => (seen.push(options), parts)),
      streamText: () => Stream.dieMessage("streaming is not scripted")
    })
  )

export const toolCall = (id: string, name: string, params: unknown): Response.PartEncoded => ({
  type: "tool-call",
  id,
  name,
  params,
  providerExecuted: false
})
