/**
 * Issue 47 item 6: base64, text_stats and regex_extract never block the event loop for more
 * than 100 ms on the longest text a call may carry (32 Mi characters of arguments): a Base64
 * text decoded, refused for a bad character at its end or described as binary, a text counted,
 * a text searched with the match at its end. The answers are the ones the tools gave before;
 * and a timeout around a long call fires on time.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, ManagedRuntime, Option } from "effect"
import * as Fs from "node:fs"
import { MAX_ARGUMENT_CHARS, ToolSystem, Workspace } from "../../../../src/index.js"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { textTools } from "../../../../src/tools/ported/text/index.js"
import { renderStats, textStats } from "../../../../src/tools/ported/text/textStats.js"
import { OUTPUT_MAX_CHARS } from "../../../../src/tools/shared/outputCap.js"
import { MAX_BLOCK_MS, measureRepeatedBlocking } from "../../../helpers/loopDelay.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

const ws = makeTempDirSync("text-freeze-")
// one system for all calls, built (and its modules loaded) before any measurement
const runtime = ManagedRuntime.make(
  ToolSystem.layerNode({ builtins: false, tools: [...dataTools, ...textTools], workspace: Workspace.layerFixed(ws) })
)

const call = (name: string, args: Record<string, unknown>) => Effect.flatMap(ToolSystem, (system) => system.execute(name, args))

/** One call, repeated up to 3 times, with the least event-loop block seen. */
const measured = (name: string, args: Record<string, unknown>) =>
  measureRepeatedBlocking(() => runtime.runPromise(call(name, args)))

/** A call ended by a timeout of `ms`: whether it ended in the TimeoutException, and when. */
const timedOut = async (name: string, args: Record<string, unknown>, ms: number) => {
  const started = performance.now()
  const exit = await runtime.runPromiseExit(call(name, args).pipe(Effect.timeout(Duration.millis(ms))))
  return {
    timedOut: Exit.isFailure(exit) && Option.exists(Cause.findErrorOption(exit.cause), Cause.isTimeoutError),
    elapsed: performance.now() - started
  }
}

/** `text` as a flat string, as a call's arguments parsed from JSON are (`repeat` builds a rope). */
const flat = (text: string): string => JSON.parse(JSON.stringify(text))

/** The longest text a call's arguments leave room for (the keys, the mode, the pattern), a multiple of 4. */
const MOST = MAX_ARGUMENT_CHARS - 1024

// non-Latin text with pairs of surrogates, so that UTF-8 is counted apart from code units
const LINE = "Zürich und 東京. Ça va? 😀 Sí!\n"

let base64Text = ""
let base64Bad = ""
let base64Binary = ""
let binaryAnswer = ""
let prose = ""
let proseAnswer = ""

beforeAll(async () => {
  base64Text = flat(Buffer.alloc((MOST / 4) * 3, "abc").toString("base64"))
  base64Bad = flat(`${base64Text.slice(0, -8)}!${base64Text.slice(-7)}`)
  // binary data as MIME writes it: lines of 76 characters ending in CRLF
  const binary = Buffer.from(Array.from({ length: Math.floor(MOST / 78) * 57 }, (_, i) => (i * 7) % 256))
  base64Binary = flat(binary.toString("base64").replace(/.{76}/g, "$&\r\n"))
  binaryAnswer = `The decoded data is ${binary.length} bytes of binary (not UTF-8 text). First 64 bytes in hex: ` +
    binary.subarray(0, 64).toString("hex").replace(/(..)(?!$)/g, "$1 ")
  prose = flat(LINE.repeat(Math.floor(MOST / LINE.length)))
  proseAnswer = renderStats(textStats(prose))
  // the worker's path and the slices once, before any measurement
  await runtime.runPromise(call("regex_extract", { text: "warm up", pattern: "w(a)" }))
  await runtime.runPromise(call("base64", { text: "d2FybQ==", mode: "decode" }))
}, 120_000)

afterAll(async () => {
  await runtime.dispose()
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("base64: 32 Mi characters decoded without blocking", () => {
  it("valid Base64 of a text too long for an answer", async () => {
    const { maxBlockMs, value } = await measured("base64", { text: base64Text, mode: "decode" })
    expect(value.error).toBe(
      `the decoded text is more than ${OUTPUT_MAX_CHARS} characters, over the ${OUTPUT_MAX_CHARS}-character limit of ` +
        "one answer; decode the Base64 in parts (each a multiple of 4 characters)"
    )
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 120_000)

  it("a bad character near the end is named", async () => {
    const { maxBlockMs, value } = await measured("base64", { text: base64Bad, mode: "decode" })
    expect(value.error).toBe(
      `not valid Base64: "!" at position ${base64Bad.length - 8} is not a Base64 character ` +
        "(A-Z a-z 0-9 + / or - _, and = at the end)"
    )
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 120_000)

  it("binary data in lines of 76 characters is described", async () => {
    const { maxBlockMs, value } = await measured("base64", { text: base64Binary, mode: "decode" })
    expect(value.output).toBe(binaryAnswer)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 120_000)
})

describe("text_stats: 32 Mi characters counted without blocking", () => {
  it("a non-Latin text, counts as before", async () => {
    const { maxBlockMs, value } = await measured("text_stats", { text: prose })
    expect(value.output).toBe(proseAnswer)
    expect(proseAnswer).toContain(`${prose.length} UTF-16 code units; ${Buffer.byteLength(prose)} bytes as UTF-8`)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 120_000)

  it("a run of dots after a word is read once, not once per dot", async () => {
    // each dot of the run looked at the rest of it: 64 Ki dots were 2 Gi steps
    const { maxBlockMs, value } = await measured("text_stats", { text: flat(`a${".".repeat(64 * 1024)}b`) })
    expect(value.output).toBe(
      "characters: 65538 (65538 not white space; 65538 UTF-16 code units; 65538 bytes as UTF-8)\n" +
        "words: 1\nlines: 1\nsentences: 1\nparagraphs: 1"
    )
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 120_000)
})

describe("regex_extract: 32 Mi characters searched without blocking", () => {
  it("the match at the end: its line and column", async () => {
    const text = flat(`${prose}THE END`)
    const { maxBlockMs, value } = await measured("regex_extract", { text, pattern: "(?<last>E)ND" })
    const lines = prose.split("\n").length
    expect(value.output).toBe(
      `1 match:\n1. line ${lines}, column 5 (index ${text.length - 3}): "END"\n   groups: 1 (last)="E"`
    )
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 120_000)

  it("a thousand matches from the start", async () => {
    const { maxBlockMs, value } = await measured("regex_extract", { text: prose, pattern: "東(京)", max_matches: 1000 })
    const output = String(value.output)
    const column = LINE.indexOf("東") + 1
    expect(output.startsWith(`the first 1000 matches (more follow, the next at index ${1000 * LINE.length + column - 1}:`)).toBe(true)
    expect(output).toContain(`\n1000. line 1000, column ${column} (index ${999 * LINE.length + column - 1}): "東京"\n   groups: 1="京"`)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 120_000)
})

describe("a timeout around a long call fires on time", () => {
  // each call takes hundreds of milliseconds of work at least (seconds before this change, all of it
  // holding the event loop, so that the call won the race once the timer could fire)
  for (const [name, args] of [
    ["base64", () => ({ text: base64Bad, mode: "decode" })],
    ["text_stats", () => ({ text: prose })],
    ["regex_extract", () => ({ text: prose, pattern: "(?<last>E)ND" })]
  ] as const) {
    it(`${name} on 32 Mi characters: interrupted after 50 ms`, async () => {
      const { elapsed, timedOut: interrupted } = await timedOut(name, args(), 50)
      expect(interrupted).toBe(true)
      // on time: well before the work could have ended, with room for a loaded machine
      expect(elapsed).toBeLessThan(50 + 2 * MAX_BLOCK_MS)
    }, 120_000)
  }
})
