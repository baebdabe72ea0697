import { describe, expect, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { stderrLogger } from "../../src/cli/run.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const fixture = path.join(root, "test/cli/fixtures/dyingTool.ts")

const runFixture = (env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", fixture],
      { cwd: root, encoding: "utf8", env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    )
  })

/** A Console whose `log` and `error` (what loggers call) record their lines. */
const recordingConsole = () => {
  const lines: Array<{ method: "log" | "error"; text: string }> = []
  const record = (method: "log" | "error") => (...args: ReadonlyArray<unknown>) => {
    lines.push({ method, text: args.map(String).join(" ") })
  }
  const console: Console.Console = { ...globalThis.console, log: record("log"), error: record("error") }
  return { console, lines }
}

describe("the CLI's logger", () => {
  it.effect("writes Effect's logs to the error stream, never to the output stream", () =>
    Effect.gen(function*() {
      const { console, lines } = recordingConsole()
      yield* Effect.logError("Tool \"x\" died").pipe(Effect.provide(stderrLogger), Effect.provideService(Console.Console, console))
      yield* Effect.logWarning("a pool warning").pipe(Effect.provide(stderrLogger), Effect.provideService(Console.Console, console))
      expect(lines.filter((l) => l.method === "log")).toEqual([])
      expect(lines.filter((l) => l.method === "error").map((l) => l.text).join("\n")).toMatch(/Tool "x" died[\s\S]*a pool warning/)
    }))

  it.effect("keeps a long message whole up to 64 KiB, without its escape sequences", () =>
    Effect.gen(function*() {
      const { console, lines } = recordingConsole()
      const long = `\u001b[31m${"x".repeat(20_000)}\u001b[0m END`
      yield* Effect.logError(long).pipe(Effect.provide(stderrLogger), Effect.provideService(Console.Console, console))
      const text = lines.map((l) => l.text).join("\n")
      expect(text).toContain(`${"x".repeat(20_000)} END`)
      expect(text).not.toContain("\u001b[31m")
    }))

  it.effect("colors its lines when stderr is a terminal, and only then", () =>
    Effect.gen(function*() {
      const logged = (isTTY: boolean | undefined) =>
        Effect.acquireUseRelease(
          Effect.sync(() => {
            const saved = Object.getOwnPropertyDescriptor(process.stderr, "isTTY")
            Object.defineProperty(process.stderr, "isTTY", { configurable: true, writable: true, value: isTTY })
            return saved
          }),
          () =>
            Effect.gen(function*() {
              const { console, lines } = recordingConsole()
              yield* Effect.logWarning("a pool warning").pipe(Effect.provide(stderrLogger), Effect.provideService(Console.Console, console))
              return lines.map((l) => l.text).join("\n")
            }),
          (saved) =>
            Effect.sync(() => {
              if (saved === undefined) Reflect.deleteProperty(process.stderr, "isTTY")
              else Object.defineProperty(process.stderr, "isTTY", saved)
            })
        )
      const onTerminal = yield* logged(true)
      expect(onTerminal).toContain("\u001b[1m\u001b[36ma pool warning\u001b[0m") // bold cyan
      expect(onTerminal).toContain("\u001b[33mWARN\u001b[0m")
      for (const notTerminal of [false, undefined]) {
        const plain = yield* logged(notTerminal)
        expect(plain).toContain("WARN")
        expect(plain).toContain("a pool warning")
        expect(plain).not.toContain("\u001b")
      }
    }))

  it("a tool that dies under runCli: stdout is exactly the one JSON result, the log is on stderr", { timeout: 60_000 }, async () => {
    const { code, stderr, stdout } = await runFixture()
    expect(code).toBe(0)
    expect(stdout.trim().split("\n")).toHaveLength(1)
    expect(JSON.parse(stdout)).toMatchObject({ success: false, errorCode: "TOOL_ERROR", tool: "dies" })
    expect(stderr).toContain("Tool \"dies\" died")
    expect(stderr).toContain("boom from the tool")
  })

  it("a program that dies under runCli: reported on stderr, exit 1, stdout untouched", { timeout: 60_000 }, async () => {
    const { code, stderr, stdout } = await runFixture({ DEFECT: "1" })
    expect(code).toBe(1)
    expect(JSON.parse(stdout)).toMatchObject({ errorCode: "TOOL_ERROR" })
    expect(stderr).toContain("boom from the program")
  })
})
