/**
 * How a call's caller and its handler's fiber share an interruption (`guard.ts`): the handler
 * runs in a child of the caller's fiber, and the caller waits for it uninterruptibly, so an
 * interruption of the caller reaches the handler first and the caller resumes only after the
 * handler's finalizers; a caller that cannot be interrupted lets its handler run to its end.
 * Each case runs untraced and traced (a traced call runs its pipeline in an uninterruptible
 * region of its own), with and without a deadline (a tool with one always gets a child fiber).
 * The handler and its finalizer wait on the test's `TestClock`, moved on step by step once
 * they are asleep.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Schema, Tracer } from "effect"
import { Tool, type ToolExecutionResult, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { countingSleeps, joinUnmoved, wakeAfter } from "../helpers/testClock.js"

const ws = makeTempDirSync("guard-interruption-")

/** The native tracer's spans, so that a call is traced. */
const traced = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.tracer, (native) => Effect.withTracer(effect, Tracer.make({ context: native.context, span: native.span })))

const untraced = <A, E, R>(effect: Effect.Effect<A, E, R>) => effect

const cases = [
  { name: "untraced, with a deadline", timeout: "30 seconds" as const, wrap: untraced },
  { name: "untraced, no deadline", timeout: "none" as const, wrap: untraced },
  { name: "traced, with a deadline", timeout: "30 seconds" as const, wrap: traced },
  { name: "traced, no deadline", timeout: "none" as const, wrap: traced }
]

/** A tool that signals `started`, waits 100 ms, and records how it ended. */
const slowTool = (timeout: "30 seconds" | "none", started: Deferred.Deferred<void>, events: Array<string>) =>
  Tool.make("slow", {
    description: "Waits 100 ms after it starts",
    parameters: Schema.Struct({}),
    readOnly: true,
    timeout,
    handler: () =>
      Effect.andThen(Deferred.succeed(started, undefined), Effect.sleep("100 millis")).pipe(
        Effect.as("done"),
        Effect.onExit((exit) =>
          Effect.andThen(
            Effect.sleep("50 millis"),
            Effect.sync(() => void events.push(Exit.hasInterrupts(exit) ? "handler interrupted" : "handler ended"))
          )
        )
      )
  })

/**
 * Forks `caller` (given the call of the slow tool), interrupts it once the handler has started,
 * wakes the sleeps the handler should be in, one after another (`wakes`, each in ms of the
 * TestClock after the last), and returns the events in their order: the handler's end, what
 * `caller` recorded, and the interrupting fiber's resumption.
 */
const interruptedWhileSlow = (
  timeout: "30 seconds" | "none",
  caller: (call: Effect.Effect<ToolExecutionResult>, events: Array<string>) => Effect.Effect<unknown>,
  wakes: ReadonlyArray<number>
) =>
  Effect.gen(function*() {
    const started = yield* Deferred.make<void>()
    const events: Array<string> = []
    const layer = ToolSystem.layerNode({ builtins: false, tools: [slowTool(timeout, started, events)], workspace: Workspace.layerFixed(ws) })
    yield* Effect.gen(function*() {
      const system = yield* ToolSystem
      const fiber = yield* Effect.forkChild(caller(system.execute("slow", {}), events))
      yield* Deferred.await(started)
      const interrupting = yield* Effect.forkChild(Effect.flatMap(Effect.andThen(Fiber.interrupt(fiber), Fiber.await(fiber)), (exit) =>
        Effect.sync(() => void events.push(Exit.hasInterrupts(exit) ? "caller interrupted" : "caller not interrupted"))))
      for (const ms of wakes) yield* wakeAfter(ms)
      yield* joinUnmoved(interrupting)
    }).pipe(Effect.provide(layer), countingSleeps)
    return events
  })

describe.each(cases)("$name", ({ timeout, wrap }) => {
  it.effect("an interrupted caller interrupts the handler and resumes after its asynchronous finalizer", () =>
    Effect.gen(function*() {
      // interrupted at once: its finalizer's 50 ms
      const events = yield* interruptedWhileSlow(timeout, (call) => wrap(call), [50])
      expect(events).toEqual(["handler interrupted", "caller interrupted"])
    }))

  it.effect("a caller that cannot be interrupted lets the handler run to its end and gets its result", () =>
    Effect.gen(function*() {
      // its 100 ms, then its finalizer's 50 ms
      const events = yield* interruptedWhileSlow(timeout, (call, events) =>
        Effect.uninterruptible(
          Effect.tap(wrap(call), (result) => Effect.sync(() => void events.push(`result ${String(result.output)}`)))
        ), [100, 50])
      expect(events).toEqual(["handler ended", "result done", "caller interrupted"])
    }))
})

describe("a caller's children", () => {
  // Effect 4 has no Fiber.children: each fiber a handler ran on is kept, and after the calls
  // every one of them other than the caller's own has ended
  it.effect("a caller that made calls holds none of their fibers after", () =>
    Effect.gen(function*() {
      const handlerFibers: Array<Fiber.Fiber<unknown, unknown>> = []
      const later = Tool.make("later", {
        description: "Answers after a macrotask",
        parameters: Schema.Struct({}),
        readOnly: true,
        handler: () =>
          Effect.withFiber((fiber) => {
            handlerFibers.push(fiber)
            return Effect.callback<string>((resume) => void setImmediate(() => resume(Effect.succeed("later"))))
          })
      })
      const layer = ToolSystem.layerNode({ builtins: false, tools: [later], workspace: Workspace.layerFixed(ws) })
      const after = yield* Effect.gen(function*() {
        const system = yield* ToolSystem
        for (let i = 0; i < 3; i++) expect((yield* system.execute("later", {})).output).toBe("later")
        const caller = yield* Effect.withFiber((fiber) => Effect.succeed<Fiber.Fiber<unknown, unknown>>(fiber))
        expect(handlerFibers).toHaveLength(3)
        return handlerFibers.filter((fiber) => fiber !== caller && fiber.pollUnsafe() === undefined)
      }).pipe(Effect.provide(layer))
      expect(after).toEqual([])
    }))
})
