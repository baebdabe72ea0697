/**
 * Per-call cost of a trivial tool through the full pipeline (lookup, Schema decode, every
 * gate, a 30 s deadline, result), against two anchors measured in the same process:
 *   (a) `Effect.runPromise` of the bare handler,
 *   (b) the same tool through `@effect/ai`'s `Toolkit` handle.
 * Goal: pipeline <= 5x (a) and <= 0.5x (b). Run: `npm run bench` (it builds first).
 *
 * The library is measured as it ships: compiled by tsc, loaded from `dist/`. (Under tsx,
 * esbuild's keep-names wrapper runs on every closure the pipeline creates per call, which
 * adds a few microseconds that no user of the package pays.)
 */
import { Tool as AiTool, Toolkit } from "@effect/ai"
import { Effect, ManagedRuntime, Schema } from "effect"
import type * as Library from "../src/index.js"

const dist = new URL("../dist/index.js", import.meta.url)
const { Tool, ToolExecutor, ToolSystem, Workspace }: typeof Library = await import(dist.href)

const N = Number(process.env.BENCH_CALLS ?? 50_000)
const ROUNDS = 3

const handler = ({ x }: { readonly x: number }) => Effect.succeed(x + 1)

const ours = Tool.make("inc", {
  description: "Adds one",
  parameters: Schema.Struct({ x: Schema.Number }),
  readOnly: true,
  timeout: "30 seconds",
  handler
})

const AiInc = AiTool.make("inc", {
  description: "Adds one",
  parameters: { x: Schema.Number },
  success: Schema.Number
})
const aiToolkit = Toolkit.make(AiInc)
const aiLayer = aiToolkit.toLayer({ inc: handler })

const time = async (label: string, run: (i: number) => Promise<unknown>): Promise<number> => {
  const samples: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now()
    for (let i = 0; i < N; i++) await run(i)
    samples.push(((performance.now() - start) / N) * 1000)
  }
  samples.sort((a, b) => a - b)
  const median = samples[Math.floor(samples.length / 2)] ?? Number.NaN
  process.stdout.write(`${label.padEnd(44)} ${median.toFixed(2)} µs/call (median of ${ROUNDS} x ${N})\n`)
  return median
}

const main = async () => {
  const system = ManagedRuntime.make(
    ToolSystem.layerNode({ builtins: false, tools: [ours], workspace: Workspace.layerFixed(process.cwd()) })
  )
  const executor = await system.runPromise(ToolExecutor)
  const ai = ManagedRuntime.make(aiLayer)
  const toolkit = await ai.runPromise(aiToolkit)

  // sanity: all three compute the same thing
  const check = await system.runPromise(executor.execute("inc", { x: 1 }))
  if (!check.success || check.output !== 2) throw new Error(`pipeline returned ${JSON.stringify(check)}`)

  // warm up the JIT on every path
  for (let i = 0; i < 5000; i++) {
    await Effect.runPromise(handler({ x: i }))
    await system.runPromise(executor.execute("inc", { x: i }))
    await ai.runPromise(toolkit.handle("inc", { x: i }))
  }

  const bare = await time("(a) Effect.runPromise(handler)", (i) => Effect.runPromise(handler({ x: i })))
  const viaAi = await time("(b) @effect/ai Toolkit.handle", (i) => ai.runPromise(toolkit.handle("inc", { x: i })))
  const pipeline = await time("pipeline: ToolExecutor.execute", (i) => system.runPromise(executor.execute("inc", { x: i })))

  const vsBare = pipeline / bare
  const vsAi = pipeline / viaAi
  process.stdout.write(
    `\npipeline / bare handler   = ${vsBare.toFixed(2)}x  (goal <= 5x)   ${vsBare <= 5 ? "met" : "NOT met"}\n` +
      `pipeline / @effect/ai     = ${vsAi.toFixed(2)}x  (goal <= 0.5x) ${vsAi <= 0.5 ? "met" : "NOT met"}\n`
  )
  await system.dispose()
  await ai.dispose()
}

main()
