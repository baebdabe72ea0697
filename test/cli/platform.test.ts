/**
 * The command line's platform (`src/cli/platform.ts`): `NodeServices.layer`'s services, with
 * the terminal and the child-process spawner loaded on first use (`layerNodeLazy`). They must
 * still be Node's: a command spawned through the lazy spawner runs, with its `cwd` checked by
 * the file system as the Node spawner checks it, and the terminal answers (its size, a line and
 * a key read from stdin, a text shown on stdout: the test's own streams for the while).
 */
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { afterEach, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import { PassThrough } from "node:stream"
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

  describe("on the process's streams", () => {
    const saved = { stdin: Object.getOwnPropertyDescriptor(process, "stdin"), stdout: Object.getOwnPropertyDescriptor(process, "stdout") }
    afterEach(() => {
      if (saved.stdin !== undefined) Object.defineProperty(process, "stdin", saved.stdin)
      if (saved.stdout !== undefined) Object.defineProperty(process, "stdout", saved.stdout)
    })
    /** `process.stdin` and `process.stdout` replaced by fresh streams; what is written to stdout. */
    const ownStreams = () => {
      const stdin = new PassThrough()
      const stdout = new PassThrough()
      const shown: Array<string> = []
      stdout.on("data", (chunk: Buffer) => shown.push(chunk.toString("utf8")))
      Object.defineProperty(process, "stdin", { configurable: true, enumerable: true, get: () => stdin })
      Object.defineProperty(process, "stdout", { configurable: true, enumerable: true, get: () => stdout })
      return { stdin, shown }
    }

    it.effect("the terminal reads a line and a key from stdin, shows a text on stdout, and gives its size", () => {
      const { stdin, shown } = ownStreams()
      return Effect.gen(function*() {
        const terminal = yield* Terminal.Terminal
        yield* terminal.display("Proceed? ")
        expect(shown.join("")).toBe("Proceed? ")
        stdin.write("yes\n")
        expect(yield* terminal.readLine).toBe("yes")
        const keys = yield* terminal.readInput
        stdin.write("q")
        const key = yield* Queue.take(keys)
        expect({ input: Option.getOrUndefined(key.input), name: key.key.name }).toEqual({ input: "q", name: "q" })
        // a stream that is no terminal has no size
        expect(yield* Queue.take(yield* terminal.size)).toEqual({ columns: 0, rows: 0 })
      }).pipe(Effect.scoped, Effect.provide(Platform.layer))
    })
  })
})
