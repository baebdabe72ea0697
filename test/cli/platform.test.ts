/**
 * The command line's platform (`src/cli/platform.ts`): `NodeServices.layer`'s services, with
 * the terminal and the child-process spawner loaded on first use (`layerNodeLazy`). They must
 * still be Node's: a command spawned through the lazy spawner runs, with its `cwd` checked by
 * the file system as the Node spawner checks it, and the terminal answers.
 */
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ChildProcess from "effect/process/ChildProcess"
import { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as Terminal from "effect/Terminal"
import * as Platform from "../../src/cli/platform.js"

describe("the command line's platform", () => {
  it.effect("spawns through Node's spawner, loaded on the first spawn, and again with the same one", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner
      const script = "process.stdout.write(process.argv[1])"
      const first = yield* spawner.string(ChildProcess.make(process.execPath, ["-e", script, "one"]))
      const second = yield* spawner.string(ChildProcess.make(process.execPath, ["-e", script, "two"]))
      expect([first, second]).toEqual(["one", "two"])
      const code = yield* spawner.exitCode(ChildProcess.make(process.execPath, ["-e", "process.exitCode = 3"]))
      expect(code).toBe(3)
      // the Node spawner's own check of `cwd`, through the platform's file system
      const missing = yield* Effect.flip(
        spawner.string(ChildProcess.make(process.execPath, ["-e", "0"], { cwd: "/no/such/directory/here" }))
      )
      expect(missing._tag).toBe("PlatformError")
    }).pipe(Effect.scoped, Effect.provide(Platform.layer)))

  it.effect("gives Node's terminal, loaded when first used: its size as NodeTerminal's", () => {
    const size = Effect.gen(function*() {
      const terminal = yield* Terminal.Terminal
      return { columns: yield* terminal.columns, rows: yield* terminal.rows }
    })
    return Effect.gen(function*() {
      const lazy = yield* Effect.provide(size, Platform.layer)
      expect(lazy).toEqual(yield* Effect.provide(size, NodeTerminal.layer))
      expect(Number.isInteger(lazy.columns)).toBe(true)
    })
  })
})
