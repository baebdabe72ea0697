/**
 * The demo (`npm run demo`): one agent session's worth of calls through every gate, in a
 * fresh temp workspace, printed as the ToolExecutionResults an agent would see.
 */
import { Cause, Console, Effect, Exit, Option, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { AgentMode, Tool, ToolPolicy, ToolSystem, Workspace } from "../src/index.js"

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "ets-demo-"))

/** A tool of the application's own, defined with a Schema. */
const shout = Tool.make("shout", {
  description: "Upper-cases a text",
  parameters: Schema.Struct({ text: Schema.String.annotations({ description: "What to shout" }) }),
  readOnly: true,
  tags: ["demo"],
  handler: ({ text }) => Effect.succeed(`${text.toUpperCase()}!`)
})

const show = (label: string, result: unknown) => Console.log(`\n# ${label}\n${JSON.stringify(result, null, 2)}`)

const program = Effect.gen(function*() {
  const tools = yield* ToolSystem
  yield* Console.log(`workspace: ${workspace}`)
  yield* show("the model sees (OpenAI shape, first tool)", (yield* tools.openAITools())[0])
  yield* show("write_file without confirmation", yield* tools.execute("write_file", { filepath: "notes/todo.md", content: "- ship it\n" }))
  yield* show("write_file confirmed", yield* tools.execute("write_file", { filepath: "notes/todo.md", content: "- ship it\n" }, { confirm: true }))
  yield* show("read_file", yield* tools.execute("read_file", { filepath: "notes/todo.md" }))
  yield* show("list_files, recursive", yield* tools.execute("list_files", { recursive: true }))
  yield* show("write_file in explore mode (read-only)", yield* tools.execute("write_file", { filepath: "x.md", content: "" }, { mode: AgentMode.Explore, confirm: true }))
  yield* show("write_file in plan mode, under plans/", yield* tools.execute("write_file", { filepath: "plans/step1.md", content: "# Plan\n" }, { mode: AgentMode.Plan, confirm: true }))
  yield* show("the application's policy vetoes .env", yield* tools.execute("read_file", { filepath: ".env" }))
  yield* show("invalid arguments", yield* tools.execute("read_file", { filepath: 42 }))
  yield* show("a custom tool", yield* tools.execute("shout", { text: "hello" }))
  const escape = yield* Effect.exit(tools.execute("read_file", { filepath: "../../etc/passwd" }))
  const defect = Exit.isFailure(escape) ? Cause.dieOption(escape.cause) : Option.none()
  yield* Console.log(`\n# a workspace escape is a defect, never a result\n${Option.getOrElse(Option.map(defect, String), () => "??")}`)
})

const policy = ToolPolicy.layer(({ args }) =>
  Effect.succeed(JSON.stringify(args).includes(".env") ? Option.some("secrets stay out of the context") : Option.none())
)

Effect.runPromise(
  program.pipe(
    Effect.provide(ToolSystem.layerNode({ tools: [shout], workspace: Workspace.layerFixed(workspace), policy })),
    Effect.ensuring(Effect.sync(() => fs.rmSync(workspace, { recursive: true, force: true })))
  )
).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
