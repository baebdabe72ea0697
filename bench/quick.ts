import { Effect, Schema } from "effect"
import { Tool, ToolSystem, ToolExecutor } from "../src/index.js"
const echo = Tool.make("echo", { description: "echo", parameters: Schema.Struct({ x: Schema.Number }), readOnly: true, handler: ({ x }) => Effect.succeed(x) })
const main = Effect.gen(function*() {
  const ts = yield* ToolSystem
  const r = yield* ts.execute("echo", { x: 1 })
  console.log(r)
  console.log(yield* ts.execute("read_file", { filepath: "package.json", max_lines: 3 }))
  console.log(yield* ts.execute("read_file", { filepath: "../etc/passwd" }).pipe(Effect.exit))
  const N = 50000
  for (let k = 0; k < 3; k++) {
  let t = performance.now()
  for (let i = 0; i < N; i++) yield* Effect.promise(() => Effect.runPromise(Effect.succeed(1)))
  const bare = (performance.now() - t) / N * 1000
  const ex = yield* ToolExecutor
  const rt = yield* Effect.runtime<never>()
  t = performance.now()
  for (let i = 0; i < N; i++) yield* Effect.promise(() => Effect.runPromise(ex.execute("echo", { x: i })))
  const pipe = (performance.now() - t) / N * 1000
  console.log({ bare, pipe, ratio: pipe / bare })
  }
})
Effect.runPromise(main.pipe(Effect.provide(ToolSystem.layer({ tools: [echo] }))))
