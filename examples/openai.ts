/**
 * A real model on the tool system: OpenAI's chat completions API (plain HTTP through
 * Effect's `HttpClient`, `effect/http/HttpClient`, no SDK), the registry's tools in the
 * strict export, and every call the model makes run by `ToolCallHandler` until the model
 * answers in text.
 *
 *   OPENAI_API_KEY=sk-... npx tsx examples/openai.ts "What does this project do?"
 *
 * Environment: OPENAI_API_KEY (required), OPENAI_MODEL (default gpt-4o-mini), OPENAI_BASE_URL
 * (default https://api.openai.com/v1; any OpenAI-compatible server), AGENT_MODE (explore,
 * plan or default; default explore: read-only), WORKSPACE_ROOT (default: the current
 * directory). In a terminal, confirmations and `ask_user` questions are put to you.
 *
 * On Effect 4: the HTTP modules are
 * `effect/http/*` (Effect 3: `@effect/platform/*`); a request needs no `Scope` any more
 * (no `Effect.scoped` around it); the terminal layer is `Layer.unwrap` (Effect 3:
 * `Layer.unwrapScoped`), which takes its scope from the layer's.
 */
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import { Console, Effect, Layer, Option, Schema } from "effect"
import * as readline from "node:readline/promises"
import {
  AgentMode,
  ConfirmationHandler,
  type OpenAIToolMessage,
  QuestionHandler,
  ToolCallHandler,
  ToolSystem
} from "../src/index.js"

const apiKey = process.env.OPENAI_API_KEY ?? ""
const model = process.env.OPENAI_MODEL || "gpt-4o-mini"
const baseUrl = (process.env.OPENAI_BASE_URL || "https://api.openai.com/v1").replace(/\/$/, "")
const task = process.argv.slice(2).join(" ") || "What does the project in this workspace do? Read its README first."
const MAX_TURNS = 10

const ToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("function"),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})

/** The part of a chat completion this example reads. */
const ChatCompletion = Schema.Struct({
  choices: Schema.NonEmptyArray(Schema.Struct({
    message: Schema.Struct({
      content: Schema.NullOr(Schema.String),
      tool_calls: Schema.optional(Schema.Array(ToolCall))
    })
  }))
})

type ChatMessage =
  | { readonly role: "system" | "user"; readonly content: string }
  | {
    readonly role: "assistant"
    readonly content: string | null
    readonly tool_calls?: ReadonlyArray<typeof ToolCall.Type>
  }
  | OpenAIToolMessage

const shorten = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat
}

const agent = Effect.gen(function*() {
  const mode = Option.getOrElse(AgentMode.fromName(process.env.AGENT_MODE ?? "explore"), () => AgentMode.Explore)
  const session = yield* (yield* ToolCallHandler).session({ mode, strict: true })
  const tools = yield* session.openAITools
  const client = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)
  yield* Console.log(`${model} in ${mode.name} mode with ${tools.length} tools; task: ${task}`)

  const messages: Array<ChatMessage> = [
    { role: "system", content: session.systemPrompt("You are a careful assistant working in a local workspace.") },
    { role: "user", content: task }
  ]
  for (let turn = 1; turn <= MAX_TURNS; turn++) {
    const completion = yield* HttpClientRequest.post(`${baseUrl}/chat/completions`).pipe(
      HttpClientRequest.bearerToken(apiKey),
      HttpClientRequest.bodyJson({ model, messages, tools }),
      Effect.flatMap(client.execute),
      Effect.flatMap(HttpClientResponse.schemaBodyJson(ChatCompletion))
    )
    const reply = completion.choices[0].message
    const calls = reply.tool_calls ?? []
    messages.push({ role: "assistant", content: reply.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) })
    if (calls.length === 0) {
      yield* Console.log(`\n${reply.content ?? "(no answer)"}`)
      return
    }
    const answers = yield* session.handleOpenAI(calls)
    yield* Effect.forEach(calls, (call, i) =>
      Console.log(`  ${call.function.name} ${shorten(call.function.arguments)}\n    → ${shorten(answers[i]?.content ?? "")}`))
    messages.push(...answers)
  }
  yield* Console.log(`stopped after ${MAX_TURNS} turns without a final answer`)
})

/** In a terminal, confirmations and questions go to the person at the keyboard. */
const terminal = Layer.unwrap(Effect.gen(function*() {
  if (process.stdin.isTTY !== true) return Layer.empty
  const rl = yield* Effect.acquireRelease(
    Effect.sync(() => readline.createInterface({ input: process.stdin, output: process.stdout })),
    (rl) => Effect.sync(() => rl.close())
  )
  const prompt = (text: string) => Effect.promise(() => rl.question(text))
  return Layer.merge(
    ConfirmationHandler.layer((request) =>
      Effect.map(
        prompt(`Allow ${request.tool} ${JSON.stringify(request.arguments)}? [y/N/a(lways)] `),
        (answer) => ({ approved: /^[ya]/i.test(answer), remember: /^a/i.test(answer) })
      )
    ),
    QuestionHandler.layer(({ choices, question }) =>
      prompt(`${question}${choices === undefined ? "" : ` (${choices.join(" / ")})`} `)
    )
  )
}))

const usage = `examples/openai.ts runs a real model on the tool system; it needs an API key:

  OPENAI_API_KEY=sk-... npx tsx examples/openai.ts "What does this project do?"

Optional: OPENAI_MODEL (default gpt-4o-mini), OPENAI_BASE_URL (an OpenAI-compatible server),
AGENT_MODE (explore | plan | default; default explore), WORKSPACE_ROOT (default: this directory).
Without a key, try \`npm run demo\`: the same gates with a scripted model.`

if (apiKey === "") {
  console.log(usage)
} else {
  const layer = ToolCallHandler.layer.pipe(
    Layer.provide(terminal),
    Layer.provideMerge(ToolSystem.layerNode()),
    Layer.merge(FetchHttpClient.layer)
  )
  Effect.runPromise(Effect.provide(agent, layer)).catch((error: unknown) => {
    console.error(String(error))
    process.exitCode = 1
  })
}
