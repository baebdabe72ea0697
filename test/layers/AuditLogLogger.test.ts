/**
 * `AuditLog.layerLogger`: the one-line message of a record (the version only when one was
 * found, the error code or `failed`, the duration rounded), the record as the `audit`
 * annotation (its arguments only when kept and given), and a call's record through
 * `ToolSystem` logged from the calling fiber.
 *
 * Effect 4: log levels are strings, and a line's annotations are read from the logging fiber's
 * `CurrentLogAnnotations`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger, type LogLevel, References, Schema } from "effect"
import { AuditLog, type AuditRecord, Tool, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const record = (overrides: Partial<AuditRecord> = {}): AuditRecord => ({
  time: new Date(1_700_000_000_000).toISOString(),
  tool: "read_file",
  version: "1.0.0",
  mode: "default",
  callId: null,
  rateLimitKey: null,
  argumentsHash: "cd".repeat(32),
  gates: [],
  success: true,
  errorCode: null,
  durationMs: 3,
  traceId: null,
  spanId: null,
  ...overrides
})

/** A logger that keeps the message, level and annotations of each line. */
const recordingLogger = () => {
  const logs: Array<{ level: LogLevel.LogLevel; message: string; annotations: Record<string, unknown> }> = []
  const logger = Logger.make(({ fiber, logLevel, message }) => {
    logs.push({
      level: logLevel,
      message: Array.isArray(message) ? message.map(String).join(" ") : String(message),
      annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
    })
  })
  return { logs, layer: Logger.layer([logger]) }
}

const writeAll = (records: ReadonlyArray<AuditRecord>, options?: Parameters<typeof AuditLog.layerLogger>[0]) =>
  Effect.gen(function*() {
    const { layer, logs } = recordingLogger()
    yield* Effect.flatMap(AuditLog, (log) => Effect.forEach(records, log.write)).pipe(
      Effect.provide(AuditLog.layerLogger(options)),
      Effect.provide(layer)
    )
    return logs
  })

describe("AuditLog.layerLogger's message", () => {
  it.effect("names the version only when one was found, the code or `failed`, the duration rounded", () =>
    Effect.gen(function*() {
      const logs = yield* writeAll([
        record({ tool: "nope", version: null, success: false, errorCode: "TOOL_NOT_FOUND", durationMs: 0.2 }),
        record({ tool: "hangs", version: "0.3.0", mode: "plan", success: false, errorCode: null, durationMs: 1.4 }),
        record({ durationMs: 2.5 })
      ])
      expect(logs.map((l) => l.message)).toEqual([
        "tool call nope (mode default): TOOL_NOT_FOUND in 0 ms",
        "tool call hangs@0.3.0 (mode plan): failed in 1 ms",
        "tool call read_file@1.0.0 (mode default): ok in 3 ms"
      ])
      expect(logs.map((l) => l.level)).toEqual(["Info", "Info", "Info"])
    }))
})

describe("AuditLog.layerLogger's `audit` annotation", () => {
  it.effect("keeps no arguments by default; with includeArguments, only those a record has", () =>
    Effect.gen(function*() {
      const secret = record({ arguments: { filepath: "secret.txt" } })
      const hidden = yield* writeAll([secret])
      expect(hidden[0]?.annotations.audit).toStrictEqual(record())

      const kept = yield* writeAll([secret, record()], { includeArguments: true })
      expect(kept[0]?.annotations.audit).toStrictEqual(secret)
      // no `arguments` key at all (not even an undefined one) when the record has none
      expect(Object.keys(kept[1]?.annotations.audit ?? {})).not.toContain("arguments")
      expect(kept[1]?.annotations.audit).toStrictEqual(record())
    }))

  it.effect("reports whether it keeps the arguments", () =>
    Effect.gen(function*() {
      const flags = (options?: Parameters<typeof AuditLog.layerLogger>[0]) =>
        Effect.map(AuditLog, (log) => [log.enabled, log.includeArguments]).pipe(Effect.provide(AuditLog.layerLogger(options)))
      expect(yield* flags()).toEqual([true, false])
      expect(yield* flags({ includeArguments: true })).toEqual([true, true])
      expect(yield* flags({ includeArguments: false })).toEqual([true, false])
    }))
})

describe("AuditLog.layerLogger under ToolSystem", () => {
  const ws = makeTempDirSync("audit-logger-")
  const echo = Tool.make("echo", {
    description: "Echoes its text",
    parameters: Schema.Struct({ text: Schema.String }),
    readOnly: true,
    handler: ({ text }) => Effect.succeed(text)
  })

  it.effect("one line per call, in the calling fiber (its annotations are on the line)", () =>
    Effect.gen(function*() {
      const { layer, logs } = recordingLogger()
      yield* Effect.gen(function*() {
        const tools = yield* ToolSystem
        yield* tools.execute("echo", { text: "hi" }, { callId: "c-1" }).pipe(Effect.annotateLogs("request", "r-1"))
        yield* tools.execute("echo", { text: 1 }, { callId: "c-2" })
      }).pipe(
        Effect.provide(ToolSystem.layerNode({
          builtins: false,
          tools: [echo],
          workspace: Workspace.layerFixed(ws),
          audit: AuditLog.layerLogger()
        })),
        Effect.provide(layer)
      )
      const lines = logs.filter((l) => l.message.startsWith("tool call "))
      expect(lines.map((l) => l.message.replace(/ in \d+ ms$/, ""))).toEqual([
        "tool call echo@1.0.0 (mode default): ok",
        "tool call echo@1.0.0 (mode default): INVALID_ARGUMENTS"
      ])
      expect(lines[0]?.annotations).toMatchObject({ request: "r-1", audit: { callId: "c-1", success: true } })
      expect(lines[1]?.annotations.audit).toMatchObject({ callId: "c-2", errorCode: "INVALID_ARGUMENTS" })
    }))
})
