/**
 * The demo (`npm run demo`): a scripted agent run in a fresh temp workspace, with no network
 * and no API key. A "model" (a fixed script of OpenAI-shaped tool calls) works through one
 * session per mode; `ToolCallHandler` runs its calls through every gate and answers with
 * the tool messages a real model would read. Each step says what it shows, and checks it:
 * the demo exits 1 when a gate does not behave as the step expects.
 *
 * The same steps and checks as on the Effect 3 line (tag effect3); the API differs only where
 * Effect does (`Schema.annotate`, `Ref.makeUnsafe`). Confirmation goes through
 * `ToolCallHandler` and the application's `ConfirmationHandler`; an `effect/ai` application
 * (`effect-tool-system/effect-ai`) would get the same question as effect/ai's own approval round
 * instead, which this demo, having no model, does not use.
 */
import { Console, Effect, Exit, Layer, Option, Ref, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  AgentMode,
  ConfirmationHandler,
  type OpenAIToolCall,
  pathTraversalOf,
  Tool,
  ToolCallHandler,
  ToolSystem,
  Workspace
} from "../src/index.js"

const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ets-demo-")))
fs.writeFileSync(path.join(workspace, "README.md"), "# Demo project\nA tiny workspace for the demo.\n")

/** An application tool with a rate limit: two calls a minute. */
const quote = Tool.make("quote", {
  description: "A stock quote (demo data)",
  parameters: Schema.Struct({ symbol: Schema.String.annotate({ description: "Ticker symbol" }) }),
  readOnly: true,
  rateLimitRpm: 2,
  handler: ({ symbol }) => Effect.succeed(`${symbol}: 101.25`)
})

/** An application tool that runs past its 300 ms timeout. */
const slowReport = Tool.make("slow_report", {
  description: "Builds a report (slowly)",
  parameters: Schema.Struct({}),
  readOnly: true,
  timeout: "300 millis",
  handler: () => Effect.as(Effect.sleep("10 seconds"), "report")
})

let nextId = 0
const call = (name: string, args: unknown): OpenAIToolCall => ({
  id: `call_${++nextId}`,
  type: "function",
  function: { name, arguments: JSON.stringify(args) }
})

/** One scripted model turn and what it should show. */
interface Step {
  readonly title: string
  readonly mode: AgentMode.AgentMode
  readonly calls: ReadonlyArray<OpenAIToolCall>
  /** The expected code of each call, in order (`ok` for a success), or `defect` for the whole turn. */
  readonly expect: ReadonlyArray<string> | "defect"
  readonly shows: string
}

const steps: ReadonlyArray<Step> = [{
  title: "read in explore mode",
  mode: AgentMode.Explore,
  calls: [call("read_file", { filepath: "README.md" })],
  expect: ["ok"],
  shows: "a read-only tool passes the mode gate of a read-only mode"
}, {
  title: "write refused in explore mode",
  mode: AgentMode.Explore,
  calls: [call("write_file", { filepath: "notes.md", content: "todo\n" })],
  expect: ["MODE_BLOCKED"],
  shows: "explore lets nothing with side effects through; the model is told why, no exception"
}, {
  title: "plan written in plan mode",
  mode: AgentMode.Plan,
  calls: [call("write_file", { filepath: "plans/step-1.md", content: "1. read the code\n" })],
  expect: ["ok"],
  shows: "plan mode is read-only except for writes under plans/"
}, {
  title: "write approved by the user",
  mode: AgentMode.Default,
  calls: [call("write_file", { filepath: "notes.md", content: "todo\n" })],
  expect: ["ok"],
  shows: "write_file needs confirmation: the ConfirmationHandler asked, the user said yes, it ran confirmed"
}, {
  title: "rate limit",
  mode: AgentMode.Default,
  calls: [call("quote", { symbol: "ACME" }), call("quote", { symbol: "INIT" }), call("quote", { symbol: "ZETA" })],
  expect: ["RATE_LIMITED", "ok", "ok"],
  shows: "quote allows 2 calls a minute: of 3 calls in one turn, 2 run and 1 is refused, with when to retry"
}, {
  title: "timeout",
  mode: AgentMode.Default,
  calls: [call("slow_report", {})],
  expect: ["TIMEOUT"],
  shows: "slow_report ran past its 300 ms timeout: it was interrupted and the model is told so"
}, {
  title: "workspace escape",
  mode: AgentMode.Default,
  calls: [call("read_file", { filepath: "../../etc/passwd" })],
  expect: "defect",
  shows: "a path out of the workspace is a defect that ends the turn; it never reaches the model as a message"
}]

/** The code a tool message starts with (`Error [MODE_BLOCKED]: ...`), or `ok`. */
const codeOf = (content: string): string => /^Error \[(\w+)\]/.exec(content)?.[1] ?? "ok"

/** The first line of a message, without its code, shortened. */
const preview = (content: string): string => {
  const line = content.replace(/^Error \[\w+\]: /, "").split("\n").find((l) => l.trim() !== "") ?? ""
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

const callText = (c: OpenAIToolCall | undefined) => c === undefined ? "?" : `${c.function.name} ${c.function.arguments}`

/** The user, scripted: says yes to every confirmation; the demo counts the questions. */
const asked = Ref.makeUnsafe(0)
const user = ConfirmationHandler.layer(() => Effect.as(Ref.update(asked, (n) => n + 1), { approved: true }))

const runStep = (step: Step, index: number) =>
  Effect.gen(function*() {
    const handler = yield* ToolCallHandler
    const session = yield* handler.session({ mode: step.mode })
    const askedBefore = yield* Ref.get(asked)
    const exit = yield* Effect.exit(session.handleOpenAI(step.calls))
    const lines: Array<string> = []
    let passed: boolean
    if (Exit.isSuccess(exit)) {
      const codes = exit.value.map((message) => codeOf(message.content))
      exit.value.forEach((message, i) => lines.push(`  ${callText(step.calls[i])} → ${codes[i]}: ${preview(message.content)}`))
      passed = step.expect !== "defect" && [...codes].sort().join() === [...step.expect].sort().join()
    } else {
      const escape = pathTraversalOf(exit.cause)
      passed = step.expect === "defect" && Option.isSome(escape)
      lines.push(Option.match(escape, {
        onNone: () => "  the turn failed, but not with a workspace escape",
        onSome: (e) => `  ${step.calls.map(callText).join(", ")} → PathTraversalError defect: ${e.path} (${e.reason})`
      }))
    }
    const questions = (yield* Ref.get(asked)) - askedBefore
    if (questions > 0) lines.push(`  the ConfirmationHandler asked the user to confirm (${questions}x): yes`)
    yield* Console.log(`[${index + 1}/${steps.length}] ${step.title} ${passed ? "✓" : "✗ NOT AS EXPECTED"}`)
    for (const line of lines) yield* Console.log(line)
    yield* Console.log(`  shows: ${step.shows}`)
    return passed
  })

const program = Effect.gen(function*() {
  yield* Console.log("effect-tool-system demo: a scripted model's tool calls through every gate (no network, no API key)")
  yield* Console.log(`workspace: ${workspace} (removed at the end)`)
  const explore = yield* (yield* ToolCallHandler).session({ mode: AgentMode.Explore })
  const offered = (yield* explore.openAITools).map((t) => t.function.name)
  yield* Console.log(`explore mode offers the model ${offered.length} tools (${offered.join(", ")})`)
  yield* Console.log(`and adds to its system prompt: ${JSON.stringify(explore.systemPromptAddendum)}\n`)
  const results = yield* Effect.forEach(steps, runStep)
  const failed = results.filter((ok) => !ok).length
  yield* Console.log(failed === 0 ? `\nall ${steps.length} steps behaved as expected` : `\n${failed} step(s) did not behave as expected`)
  return failed
})

const layer = ToolCallHandler.layer.pipe(
  Layer.provide(user),
  Layer.provideMerge(ToolSystem.layerNode({ tools: [quote, slowReport], workspace: Workspace.layerFixed(workspace) }))
)

Effect.runPromise(
  program.pipe(
    Effect.provide(layer),
    Effect.ensuring(Effect.sync(() => fs.rmSync(workspace, { recursive: true, force: true })))
  )
).then(
  (failed) => {
    process.exitCode = failed === 0 ? 0 : 1
  },
  (error) => {
    console.error(error)
    process.exitCode = 1
  }
)
