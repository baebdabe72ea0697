/**
 * The memory cap's proofs that keep more than the heap in use (`beyondGarbage`): a handler that
 * allocates before its first wait is counted.
 * In the slow lane: where test files share a process the heap in use is hundreds of MB, and
 * allocating past it cost 3-9 s of CPU per test; here each file has a process of its own.
 * Also the races of a memory cap and a deadline: the cap must be seen (64 MB past the heap at
 * the call's start) before the deadline, which a shared process's garbage, taken back by a
 * collection meanwhile, or a loaded machine's slow allocation can keep from happening in time
 * (it came out TIMEOUT once with two busy loops on the cores).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Tool, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"
import { allocate, allocateChunked, beyondGarbage } from "./guardHeap.js"

const ws = makeTempDirSync("guard-slow-")

const layerOf = (...tools: ReadonlyArray<Tool.Tool<never>>) =>
  ToolSystem.layerNode({ builtins: false, tools, workspace: Workspace.layerFixed(ws) })

const exec = (name: string) => Effect.flatMap(ToolSystem, (t) => t.execute(name, {}))

describe("a memory cap, counted from before the handler starts", () => {
  // live clock: the heap is sampled by a real setInterval; the handler holds its memory for real time
  it.live("counts what the handler allocates before its first wait", () =>
    Effect.gen(function*() {
      const keep = beyondGarbage(160)
      const eager = Tool.make("eager_hog", {
        description: "Keeps more than the heap in use from its first synchronous step, under a 16 MB cap",
        parameters: Schema.Struct({}),
        readOnly: true,
        memoryLimitMb: 16,
        timeout: "5 seconds",
        handler: () => {
          let kept: ReadonlyArray<Array<number>> | undefined = allocateChunked(keep)
          return Effect.sleep("400 millis").pipe(
            Effect.as("finished"),
            Effect.ensuring(Effect.sync(() => (kept = undefined)))
          )
        }
      })
      const r = yield* exec("eager_hog").pipe(Effect.provide(layerOf(eager)))
      expect(r).toMatchObject({ success: false, errorCode: "MEMORY_LIMIT" })
    }))
})

describe("a memory cap and a deadline", () => {
  // live clock: the heap is sampled by a real setInterval; the handler holds its memory for real time
  it.live("hit first names the result, though the deadline passes while the handler's finalizer runs", () =>
    Effect.gen(function*() {
      const events: Array<string> = []
      const hog = Tool.make("hog_then_slow_cleanup", {
        description: "Keeps 64 MB or more under a 16 MB cap; its finalizer takes 1.2 s, past the 1 s deadline",
        parameters: Schema.Struct({}),
        readOnly: true,
        memoryLimitMb: 16,
        timeout: "1 second",
        handler: () => {
          let kept: Array<number> | undefined
          return Effect.sleep("5 millis").pipe(
            Effect.andThen(Effect.sync(() => (kept = allocate(64)))),
            Effect.andThen(Effect.never),
            Effect.ensuring(
              Effect.sleep("1200 millis").pipe(
                Effect.andThen(Effect.sync(() => {
                  events.push(`released ${kept?.length}`)
                  kept = undefined
                }))
              )
            )
          )
        }
      })
      const r = yield* exec("hog_then_slow_cleanup").pipe(Effect.provide(layerOf(hog)))
      expect(r).toMatchObject({ success: false, errorCode: "MEMORY_LIMIT" })
      expect(r.error).toContain("16 MB")
      expect(events).toEqual([`released ${64 * 131_072}`])
    }))

  // live clock: the heap is sampled by a real setInterval; the handler holds its memory for real time
  it.live("passed while the finalizer of a call past its deadline runs does not rename the result", () =>
    Effect.gen(function*() {
      // the other order than above: the sampler sees the heap over the cap on every sample until
      // the finalizer ends, so only the first reason may name the result
      const events: Array<string> = []
      const late = Tool.make("slow_then_hog_cleanup", {
        description: "Waits past its 100 ms deadline; its finalizer keeps 64 MB or more for 400 ms under a 16 MB cap",
        parameters: Schema.Struct({}),
        readOnly: true,
        memoryLimitMb: 16,
        timeout: "100 millis",
        handler: () =>
          Effect.never.pipe(
            Effect.ensuring(Effect.suspend(() => {
              const kept = allocate(64)
              return Effect.sleep("400 millis").pipe(Effect.andThen(Effect.sync(() => events.push(`released ${kept.length}`))))
            }))
          )
      })
      const r = yield* exec("slow_then_hog_cleanup").pipe(Effect.provide(layerOf(late)))
      expect(r).toMatchObject({ success: false, errorCode: "TIMEOUT" })
      expect(events).toEqual([`released ${64 * 131_072}`])
    }))
})
