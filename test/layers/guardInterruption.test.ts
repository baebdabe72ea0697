/**
 * How a call's caller and its handler's fiber share an interruption (`guard.ts`): the handler
 * runs in a child of the caller's fiber, and the caller waits for it uninterruptibly, so an
 * interruption of the caller reaches the handler first and the caller resumes only after the
 * handler's finalizers; a caller that cannot be interrupted lets its handler run to its end.
 * Each case runs untraced and traced (a traced call runs its pipeline in an uninterruptible
 * region of its own), with and without a deadline (a tool with one always gets a child fiber).
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Schema, Tracer } from "effect"
import { Tool, ToolSystem, Workspace } from "../../src/index.js"
import { childrenOf } from "../../src/layers/guard.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("guard-interruption-")

/** The native tracer's spans, so that a call is traced. */
const traced = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.tracer, (native) => Effect.withTracer(effect, Tracer.make({ context: native.context, span: native.span })))

const cases = [
  { name: "untraced, with a deadline", timeout: "30 seconds" as const, wrap: <A, E, R>(e: Effect.Effect<A, E, R>) => e },
  { name: "untraced, no deadline", timeout: "none" as const, wrap: <A, E, R>(e: Effect.Effect<A, E, R>) => e },
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
      Effect.zipRight(Deferred.succeed(started, undefined), Effect.sleep("100 millis")).pipe(
        Effect.as("done"),
        Effect.onExit((exit) =>
          Effect.zipRight(
            Effect.sleep("50 millis"),
            Effect.sync(() => void events.push(Exit.isInterrupted(exit) ? "handler interrupted" : "handler ended"))
          )
        )
      )
  })

describe.each(cases)("$name", ({ timeout, wrap }) => {
  it.live("an interrupted caller interrupts the handler and resumes after its asynchronous finalizer", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const events: Array<string> = []
      const layer = ToolSystem.layerNode({ builtins: false, tools: [slowTool(timeout, started, events)], workspace: Workspace.layerFixed(ws) })
      yield* Effect.gen(function*() {
        const system = yield* ToolSystem
        const fiber = yield* Effect.fork(wrap(system.execute("slow", {})))
        yield* Deferred.await(started)
        const exit = yield* Fiber.interrupt(fiber)
        events.push("caller resumed")
        expect(Exit.isInterrupted(exit)).toBe(true)
      }).pipe(Effect.provide(layer))
      expect(events).toEqual(["handler interrupted", "caller resumed"])
    }))

  it.live("a caller that cannot be interrupted lets the handler run to its end and gets its result", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const events: Array<string> = []
      const layer = ToolSystem.layerNode({ builtins: false, tools: [slowTool(timeout, started, events)], workspace: Workspace.layerFixed(ws) })
      yield* Effect.gen(function*() {
        const system = yield* ToolSystem
        const fiber = yield* Effect.fork(Effect.uninterruptible(
          Effect.tap(wrap(system.execute("slow", {})), (result) => Effect.sync(() => void events.push(`result ${String(result.output)}`)))
        ))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        events.push("caller resumed")
      }).pipe(Effect.provide(layer))
      expect(events).toEqual(["handler ended", "result done", "caller resumed"])
    }))
})

describe("childrenOf", () => {
  it("is undefined for a fiber that keeps no children the way Effect 3's does", () => {
    expect(childrenOf({})).toBeUndefined()
    expect(childrenOf({ addChild: () => {} })).toBeUndefined()
    expect(childrenOf({ removeChild: () => {} })).toBeUndefined()
  })

  it.live("an interruption of a fiber waiting uninterruptibly reaches a child added through it", () =>
    Effect.gen(function*() {
      const events: Array<string> = []
      const childStarted = yield* Deferred.make<void>()
      const parentWaits = yield* Deferred.make<void>()
      const child = Effect.runFork(
        Effect.zipRight(Deferred.succeed(childStarted, undefined), Effect.never).pipe(
          Effect.onInterrupt(() => Effect.sync(() => void events.push("child interrupted")))
        )
      )
      const parent = yield* Effect.fork(Effect.withFiberRuntime<void>((fiber) => {
        const children = childrenOf(fiber)
        if (children === undefined) return Effect.dieMessage("no children")
        children.add(child)
        child.addObserver(() => children.remove(child))
        return Effect.uninterruptible(Effect.zipRight(Deferred.succeed(parentWaits, undefined), Fiber.await(child)))
      }))
      yield* Deferred.await(childStarted)
      yield* Deferred.await(parentWaits)
      yield* Fiber.interrupt(parent)
      events.push("parent ended")
      expect(events).toEqual(["child interrupted", "parent ended"])
    }))
})
