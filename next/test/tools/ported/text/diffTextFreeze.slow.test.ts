/**
 * Issue 47 item 6: `diff_text` never blocks the event loop for more than 100 ms (normalising the
 * line endings of 16 Mi characters took about 2 s on the main thread), and its timeout fires.
 * The texts are made flat (as `JSON.parse` gives a model's arguments) before they are measured:
 * a string built by `repeat` or `+` is a rope that the first look at its characters flattens.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, ManagedRuntime } from "effect"
import * as Fs from "node:fs"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { DIFF_TIMEOUT_MS, diffText } from "../../../../src/tools/ported/text/diffText.js"
import { MAX_BLOCK_MS, measureRepeatedBlocking } from "../../../helpers/loopDelay.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

const MI = 1024 * 1024
/** A tool timeout short enough to fire long before the diff's own limit. */
const SHORT_TIMEOUT_MS = 600

const ws = makeTempDirSync("diff-text-freeze-")
const systemOf = (tool: typeof diffText) =>
  ManagedRuntime.make(ToolSystem.layerNode({ builtins: false, tools: [tool], workspace: Workspace.layerFixed(ws) }))
// one system for all calls, built (and its modules loaded) before any measurement
const runtime = systemOf(diffText)
// the same tool with a short timeout: the executor's own deadline is what must fire
const hurried = systemOf({ ...diffText, timeoutMs: SHORT_TIMEOUT_MS })

const diff = (system: typeof runtime, args: Record<string, unknown>) =>
  system.runPromise(Effect.flatMap(ToolSystem, (tools) => tools.execute("diff_text", args)))

/** The string as `JSON.parse` gives it: flat. */
const flat = (text: string): string => Buffer.from(text, "utf8").toString("utf8")

/** `count` numbered lines of 23 characters and `eol`. */
const numbered = (count: number, eol: string, prefix = "l"): string =>
  flat(Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(7, "0")} of a long text${eol}`).join(""))

/** Threads this process runs besides its own: each live worker holds a `MessagePort` resource. */
const workerPorts = () => process.getActiveResourcesInfo().filter((resource) => resource === "MessagePort").length

// 16 Mi characters of CRLF lines (25 characters a line) and the same lines with LF: together
// within the 32 Mi characters a call's arguments may hold
const LINES = Math.floor((16 * MI) / 25)
const crlf = numbered(LINES, "\r\n")
const lf = numbered(LINES, "\n")

beforeAll(async () => {
  await diff(runtime, { a: "one\ntwo\n", b: "one\n2\n" })
  await diff(hurried, { a: "one\ntwo\n", b: "one\n2\n" })
}, 30_000)

afterAll(async () => {
  await runtime.dispose()
  await hurried.dispose()
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("diff_text: no call blocks the event loop", () => {
  it("16 Mi characters of CRLF text against the same text with LF: said plainly, without a block over 100 ms", async () => {
    expect(crlf.length).toBeGreaterThan(16 * MI - 25)
    const { maxBlockMs, value } = await measureRepeatedBlocking(() => diff(runtime, { a: crlf, b: lf }))
    expect(value.output).toBe("The texts differ only in their line endings (a: CRLF, b: LF).")
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)

  it("16 Mi characters of CRLF text with one line changed in its middle: the hunk, without a block over 100 ms", async () => {
    const middle = Math.floor(LINES / 2)
    const line = (i: number) => `l${String(i).padStart(7, "0")} of a long text`
    const changed = flat(crlf.replace(`${line(middle)}\r\n`, "a changed line\r\n"))
    const { maxBlockMs, value } = await measureRepeatedBlocking(() =>
      diff(runtime, { a: crlf, b: changed, context_lines: 1 })
    )
    expect(value.output).toBe([
      "--- a",
      "+++ b",
      `@@ -${middle},3 +${middle},3 @@`,
      ` ${line(middle - 1)}\r`,
      `-${line(middle)}\r`,
      "+a changed line\r",
      ` ${line(middle + 1)}\r`
    ].join("\n"))
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)

  it("two texts too different to diff in time: said plainly, without a block over 100 ms", async () => {
    const a = numbered(40_000, "\n", "a")
    const b = numbered(40_000, "\n", "b")
    const { maxBlockMs, value } = await measureRepeatedBlocking(() => diff(runtime, { a, b }))
    expect(value.error).toBe(
      `the texts differ between line 1 and line 40000, too differently to compute a diff within ${
        DIFF_TIMEOUT_MS / 1000
      } s; diff smaller parts`
    )
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)

  it("the tool's timeout fires on time and leaves no worker running", async () => {
    const a = numbered(40_000, "\n", "a")
    const b = numbered(40_000, "\n", "b")
    const before = workerPorts()
    const { maxBlockMs, value } = await measureRepeatedBlocking(async () => {
      const started = Date.now()
      const result = await diff(hurried, { a, b })
      return { result, ms: Date.now() - started }
    })
    expect(value.result.errorCode).toBe("TIMEOUT")
    expect(value.ms).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 50)
    expect(value.ms).toBeLessThan(SHORT_TIMEOUT_MS + 1000)
    expect(workerPorts()).toBe(before)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)
})
