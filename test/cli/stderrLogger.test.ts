/**
 * The CLI's logger in this process (test/cli/logging.slow.test.ts runs it in a child): colored
 * when stderr is a terminal (whatever stdout is), plain otherwise, and a long message cleaned
 * without being cut short of its end (up to 64 KiB).
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { stderrLogger } from "../../src/cli/run.js"

/** A Console whose `error` (what the logger calls) records its lines. */
const recordingConsole = () => {
  const lines: Array<string> = []
  const console: Console.Console = {
    ...globalThis.console,
    error: (...args: ReadonlyArray<unknown>) => {
      lines.push(args.map(String).join(" "))
    }
  }
  return { console, lines }
}

const streams = { stdout: process.stdout, stderr: process.stderr }
const saved = {
  stdout: Object.getOwnPropertyDescriptor(process.stdout, "isTTY"),
  stderr: Object.getOwnPropertyDescriptor(process.stderr, "isTTY")
}
afterEach(() => {
  for (const name of ["stdout", "stderr"] as const) {
    const descriptor = saved[name]
    if (descriptor === undefined) Reflect.deleteProperty(streams[name], "isTTY")
    else Object.defineProperty(streams[name], "isTTY", descriptor)
  }
})

/** The streams as terminals or not, for the logger built next. */
const terminals = (options: { readonly stdout: boolean; readonly stderr: boolean }) => {
  for (const name of ["stdout", "stderr"] as const) {
    Object.defineProperty(streams[name], "isTTY", { configurable: true, writable: true, value: options[name] })
  }
}

/** What `Effect.logWarning(message)` prints through a logger built now. */
const logged = (message: string) => {
  const { console, lines } = recordingConsole()
  return Effect.logWarning(message).pipe(
    Effect.provide(stderrLogger),
    Effect.provideService(Console.Console, console),
    Effect.as(lines)
  )
}

const ESC = "\u001b["

describe("the CLI's logger, in process", () => {
  it.effect("colors its lines when stderr is a terminal, even when stdout is not", () =>
    Effect.gen(function*() {
      terminals({ stdout: false, stderr: true })
      const lines = yield* logged("a pool warning")
      expect(lines.join("\n")).toContain("a pool warning")
      expect(lines.join("\n")).toContain(ESC)
    }))

  it.effect("prints plain lines when stderr is not a terminal, even when stdout is", () =>
    Effect.gen(function*() {
      terminals({ stdout: true, stderr: false })
      const lines = yield* logged("a pool warning")
      expect(lines.join("\n")).toContain("a pool warning")
      expect(lines.join("\n")).not.toContain(ESC)
    }))

  it.effect("cleans a long message whole: an escape sequence near its end is removed, and the end is kept", () =>
    Effect.gen(function*() {
      terminals({ stdout: false, stderr: false })
      const message = `${"x".repeat(20_000)} \u001b[31mred\u001b[0m THE END`
      const text = (yield* logged(message)).join("\n")
      expect(text).toContain(`${"x".repeat(20_000)} red THE END`)
      expect(text).not.toContain(ESC)
    }))
})
