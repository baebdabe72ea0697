/**
 * Edges of the data tools that the first tests let pass: Base64 decoding at the 3-bytes-per-
 * character bound (exactly at it the text is decoded; past it only the first block is checked,
 * and a character that block cuts is not binary), a JSON null as an empty CSV cell, and the
 * too-large hint given for a file over the cap only, a pointer through null (the message and the
 * tool's own error, from both JSON tools), a consistent delimiter kept over a more
 * frequent inconsistent one, and the YAML writer's failures: its deadline named, no text, an
 * error of the writer.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as Fs from "node:fs"
import { guessDelimiter } from "../../../../src/tools/ported/data/csv.js"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { convertInWorker } from "../../../../src/tools/ported/data/convertWorker.js"
import { convertJob } from "../../../../src/tools/ported/data/formats.js"
import { OUTPUT_MAX_CHARS } from "../../../../src/tools/shared/outputCap.js"
import { FIRST_BLOCK_BYTES } from "../../../../src/tools/shared/safeFsRead.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner, writeIn } from "./harness.js"
import { countingSleeps, joinUnmoved, sleepersUntil } from "../../../helpers/testClock.js"

let ws: string
const run = runner(dataTools, () => ws)

beforeAll(() => {
  ws = makeTempDirSync("ported-data-survivors-")
  const write = writeIn(ws)
  write("null-inside.json", "{\"a\": null}")
  write("nulls.json", JSON.stringify([{ a: null, b: 1 }, { a: "x", b: null }]))
})

afterAll(() => {
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("base64 decode at the size bound", () => {
  it.effect("exactly 3 bytes per allowed character: three-byte characters up to the cap are decoded", () =>
    Effect.gen(function*() {
      const text = "€".repeat(OUTPUT_MAX_CHARS)
      expect(Buffer.byteLength(text)).toBe(OUTPUT_MAX_CHARS * 3)
      const r = yield* run("base64", { text: Buffer.from(text).toString("base64"), mode: "decode" })
      expect(r.error).toBeNull()
      expect(r.output).toBe(text)
    }))

  it.effect("past the bound, text whose first block ends inside a character is text too long, not binary", () =>
    Effect.gen(function*() {
      // 3-byte characters: the first block's end cuts one (FIRST_BLOCK_BYTES is not a multiple of 3)
      expect(FIRST_BLOCK_BYTES % 3).not.toBe(0)
      const text = "€".repeat(OUTPUT_MAX_CHARS + 1)
      const r = yield* run("base64", { text: Buffer.from(text).toString("base64"), mode: "decode" })
      expect(r.error).toBe(
        `the decoded text is more than ${OUTPUT_MAX_CHARS} characters, over the ${OUTPUT_MAX_CHARS}-character limit ` +
          "of one answer; decode the Base64 in parts (each a multiple of 4 characters)"
      )
    }))
})

describe("convert_format and read errors", () => {
  it.effect("a JSON null is an empty CSV cell", () =>
    Effect.gen(function*() {
      expect((yield* run("convert_format", { filepath: "nulls.json", to: "csv" })).output).toBe("a,b\n,1\nx,\n")
    }))

  it.effect("a file that is missing gets no hint about reading large files in parts", () =>
    Effect.gen(function*() {
      const r = yield* run("read_json", { filepath: "missing.json" })
      expect([r.errorCode, r.error]).toEqual(["TOOL_ERROR", "\"missing.json\" does not exist"])
    }))
})

describe("read_json and query_json: a pointer through null", () => {
  it.effect("stops at null, says so, and is the tool's own error (no details)", () =>
    Effect.gen(function*() {
      const message = "no value at \"/a/b\": the value at \"/a\" is null, not an object or array"
      const queried = yield* run("query_json", { json: "{\"a\": null}", pointer: "/a/b" })
      expect([queried.errorCode, queried.error, "details" in queried]).toEqual(["TOOL_ERROR", message, false])
      const read = yield* run("read_json", { filepath: "null-inside.json", pointer: "/a/b" })
      expect([read.errorCode, read.error, "details" in read]).toEqual(["TOOL_ERROR", message, false])
    }))
})

describe("CSV delimiter", () => {
  it("a delimiter as frequent on every line wins over one more frequent in total but not on every line", () => {
    // "," once per line; ";" twice on the first line only
    expect(guessDelimiter("a,b;c;d\n1,2\n3,4\n")).toBe(",")
  })
})

describe("the YAML writer", () => {
  // the worker's deadline is an Effect.timeoutOrElse on the fiber's Clock: moved on the TestClock (under countingSleeps, which sees the sleep)
  it.effect("a value it cannot write within the deadline fails with a message that names the writer", () =>
    Effect.gen(function*() {
      const value = Array.from({ length: 100_000 }, (_, i) => ({ key: i, text: "x".repeat(20) }))
      const conversion = yield* Effect.forkChild(
        Effect.flip(convertInWorker(convertJob("json", "yaml", JSON.stringify(value), ",", 100), "5 millis"))
      )
      // writing at 4 ms of the clock, stopped at 5
      yield* sleepersUntil(5)
      yield* TestClock.adjust(4)
      expect(conversion.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(1)
      const failed = yield* joinUnmoved(conversion)
      expect(failed).toBe("the conversion did not finish within 5ms")
    }).pipe(countingSleeps), 30_000)
})
