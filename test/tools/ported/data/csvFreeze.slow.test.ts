/**
 * Issue 47 item 6: read_csv and convert_format never block the event loop for more than 100 ms,
 * whatever the file: 10M columns, one 100 MB field, a 10 MB header, half a million short rows,
 * a 1 MiB JSON array, a YAML alias bomb. Over-limit input is refused with a clear error before it
 * is parsed, or read within caps; and a timeout around a call fires on time.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, ManagedRuntime, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { parseCsvInWorker } from "../../../../src/tools/ported/data/csvWorker.js"
import { DATA_FILE_MAX_BYTES } from "../../../../src/tools/ported/data/files.js"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { MAX_BLOCK_MS, measureRepeatedBlocking } from "../../../helpers/loopDelay.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

const MIB = 1024 * 1024
const ws = makeTempDirSync("csv-freeze-")
// one system for all calls, built (and its modules loaded) before any measurement
const runtime = ManagedRuntime.make(ToolSystem.layerNode({ builtins: false, tools: dataTools, workspace: Workspace.layerFixed(ws) }))

const call = (name: string, args: Record<string, unknown>) => Effect.flatMap(ToolSystem, (system) => system.execute(name, args))

/** One call, repeated up to 3 times, with the least event-loop block seen. */
const measured = (name: string, args: Record<string, unknown>) =>
  measureRepeatedBlocking(() => runtime.runPromise(call(name, args)))

const write = (rel: string, ...parts: ReadonlyArray<string | Uint8Array>) => {
  const fd = Fs.openSync(Path.join(ws, rel), "w")
  for (const part of parts) Fs.writeSync(fd, typeof part === "string" ? Buffer.from(part) : part)
  Fs.closeSync(fd)
}

const READ_PART = ` (only the first ${DATA_FILE_MAX_BYTES} bytes of the file were read)`
const READ_LIMITS = "; read_csv reads records of at most 10000 fields and 1048576 characters (read_lines shows the text)"

beforeAll(async () => {
  // 10M columns: 20 MB of "a,"
  write("wide.csv", Buffer.alloc(20_000_000, "a,"))
  // one 100 MB field after a header
  write("field.csv", "name\n", Buffer.alloc(100_000_000, "x"), "\n")
  // a 10 MB header of 5,000 names of 2,000 characters
  write("header.csv", Array.from({ length: 5000 }, (_, i) => `${i}`.padStart(2000, "h")).join(","), "\n1\n")
  // 5,000 columns that are allowed, and 100 rows of them
  const row = Array.from({ length: 5000 }, (_, i) => `v${i}`).join(",")
  write("wide-ok.csv", `${Array.from({ length: 5000 }, (_, i) => `c${i}`).join(",")}\n`, `${row}\n`.repeat(100))
  // the same attacks within convert_format's 1 MiB
  write("wide1.csv", Buffer.alloc(MIB, "a,"))
  write("field1.csv", "name\n", Buffer.alloc(MIB - 100, "x"), "\n")
  write("header1.csv", Array.from({ length: 500 }, (_, i) => `${i}`.padStart(2000, "h")).join(","), "\n1\n")
  write("rows1.csv", "a\n", Buffer.alloc(MIB - 2, "a\n"))
  write("array1.json", `[${Array.from({ length: MIB / 2 - 1 }, () => "0").join(",")}]`)
  // 61 aliases of a list of 20,001 values: 1.2M values once expanded, in 40 KB
  write("aliases.yaml", `a: &a [${"0,".repeat(20_000)}0]\nb: [${"*a, ".repeat(60)}*a]\n`)
  // nine records of 1 MiB, within every limit: 0.5-1 s of reading and parsing
  write("slow.csv", "col\n", `${"z".repeat(MIB - 1)}\n`.repeat(9))
  write("warm.csv", "a,b\n1,2\n")
  await runtime.runPromise(call("read_csv", { filepath: "warm.csv" }))
  await runtime.runPromise(call("convert_format", { filepath: "warm.csv", to: "json" }))
}, 60_000)

afterAll(async () => {
  await runtime.dispose()
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("read_csv: a hostile file is refused or read within caps, without blocking", () => {
  it("10M columns: the record is refused as too wide before it is parsed", async () => {
    const { maxBlockMs, value } = await measured("read_csv", { filepath: "wide.csv" })
    expect(value.error).toBe(`the record on line 1 has more than 10000 fields${READ_LIMITS}${READ_PART}`)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 30_000)

  it("one 100 MB field: the record is refused as too long", async () => {
    const { maxBlockMs, value } = await measured("read_csv", { filepath: "field.csv" })
    expect(value.error).toBe(
      `the record on line 2 is longer than 1048576 characters (or a quote is left open)${READ_LIMITS}${READ_PART}`
    )
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 30_000)

  it("a 10 MB header line: refused as too long", async () => {
    const { maxBlockMs, value } = await measured("read_csv", { filepath: "header.csv" })
    expect(value.error).toBe(`the record on line 1 is longer than 1048576 characters (or a quote is left open)${READ_LIMITS}`)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 30_000)

  it("5,000 columns: rows are read up to 250,000 cells, and the summary says so", async () => {
    const { maxBlockMs, value } = await measured("read_csv", { filepath: "wide-ok.csv" })
    const lines = String(value.output).split("\n")
    expect(lines[0]).toBe(
      "wide-ok.csv: delimiter \",\", header row detected, 5000 columns (50 shown; pick others with columns), " +
        "rows 1-49 shown, then the limit of 250000 cells read per call was reached (use read_lines for the rest)"
    )
    expect(lines).toHaveLength(1 + 2 + 49)
    expect(lines[3]).toBe(`| ${Array.from({ length: 50 }, (_, i) => `v${i}`).join(" | ")} |`)
    // any column can still be picked, by name, case ignored
    const picked = await runtime.runPromise(call("read_csv", { filepath: "wide-ok.csv", columns: ["C4999", "c7"], limit: 1 }))
    expect(String(picked.output).split("\n").slice(1)).toEqual(["| c4999 | c7 |", "| --- | --- |", "| v4999 | v7 |"])
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 30_000)
})

describe("convert_format: a hostile source is refused or converted within caps, without blocking", () => {
  it("a 1 MiB line of 512K columns is refused as too wide", async () => {
    const { maxBlockMs, value } = await measured("convert_format", { filepath: "wide1.csv", to: "json" })
    expect(value.error).toBe("\"wide1.csv\": the record on line 1 has more than 10000 fields")
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 30_000)

  it("a 1 MiB field and a 1 MiB header are converted, the answer cut", async () => {
    for (const [file, start] of [["field1.csv", "[\n  {\n    \"name\": \"xxx"], ["header1.csv", "[\n  {\n    \"hhh"]] as const) {
      const { maxBlockMs, value } = await measured("convert_format", { filepath: file, to: "json" })
      expect(value.success).toBe(true)
      expect(String(value.output).startsWith(start)).toBe(true)
      expect(String(value.output)).toMatch(/\n\.\.\. \(cut after \d+ of \d+ characters; the whole conversion is too long/)
      expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
    }
  }, 30_000)

  it("half a million one-letter rows: refused as more than a million values", async () => {
    const { maxBlockMs, value } = await measured("convert_format", { filepath: "rows1.csv", to: "json" })
    expect(value.error).toBe("\"rows1.csv\": the document holds more than 1000000 values (aliases expanded)")
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 30_000)

  it("a 1 MiB JSON array of 512K numbers is written as CSV", async () => {
    const { maxBlockMs, value } = await measured("convert_format", { filepath: "array1.json", to: "csv" })
    expect(String(value.output).startsWith("0\n0\n0\n")).toBe(true)
    expect(String(value.output)).toMatch(/\(cut after \d+ of 1048574 characters;/)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 30_000)

  it("a YAML alias bomb (61 aliases of 20,001 values) is refused", async () => {
    const { maxBlockMs, value } = await measured("convert_format", { filepath: "aliases.yaml", to: "json" })
    expect(value.error).toBe("\"aliases.yaml\": the document holds more than 1000000 values (aliases expanded)")
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 30_000)
})

describe("a timeout around a call fires on time", () => {
  for (const [name, args] of [
    ["read_csv", { filepath: "slow.csv" }],
    ["convert_format", { filepath: "rows1.csv", to: "json" }]
  ] as const) {
    it(`${name} on ${args.filepath}: interrupted after 100 ms`, async () => {
      const started = performance.now()
      const exit = await runtime.runPromiseExit(call(name, args).pipe(Effect.timeout(Duration.millis(100))))
      const elapsed = performance.now() - started
      // a parse on the main thread holds the timer back until it ends, and the call then wins the race
      expect(Exit.isFailure(exit) && Option.exists(Cause.findErrorOption(exit.cause), Cause.isTimeoutError)).toBe(true)
      // on time: before the parse could have ended, with room for a loaded machine
      expect(elapsed).toBeLessThan(1000)
    }, 30_000)
  }
})

describe("the CSV worker", () => {
  it.effect("parses a BOM, skips empty lines, stops after `to` records, refuses an unclosed quote", () =>
    Effect.gen(function*() {
      const limits = { maxFields: 10, maxRecordChars: 100, maxCells: 100 }
      const read = yield* parseCsvInWorker("\ufeffa,b\r\n\r\n1,2\r\n3,4\r\n", ",", { ...limits, to: 2 })
      expect(read).toEqual({ records: [["a", "b"], ["1", "2"]], stoppedAtCells: false, blank: false })
      // bytes cut inside a character: the worker decodes them, without the cut character
      const bytes = Buffer.from("a,é\n1,2\n", "utf8")
      const cut = yield* parseCsvInWorker({ bytes: bytes.subarray(0, 3), cut: true }, ",", limits)
      expect(cut.records).toEqual([["a", ""]])
      expect((yield* parseCsvInWorker({ bytes: Buffer.from(" \n\n"), cut: false }, ",", limits)).blank).toBe(true)
      const crOnly = yield* parseCsvInWorker("a,b\r1,2\r3,4", ",", limits)
      expect(crOnly.records).toEqual([["a", "b"], ["1", "2"], ["3", "4"]])
      const quoted = yield* parseCsvInWorker("\"a\nb,c\",d\n1,2\n", ",", limits)
      expect(quoted.records).toEqual([["a\nb,c", "d"], ["1", "2"]])
      const unclosed = yield* Effect.flip(parseCsvInWorker("a,\"b\n", ",", limits))
      expect(unclosed.reason).toBe("syntax")
      expect(unclosed.message).toMatch(/^not valid CSV: Quote Not Closed/)
      const cells = yield* parseCsvInWorker("a,b,c\n1,2,3\n4,5,6\n", ",", { ...limits, maxCells: 8 })
      expect(cells).toEqual({ records: [["a", "b", "c"], ["1", "2", "3"]], stoppedAtCells: true, blank: false })
      const wide = yield* Effect.flip(parseCsvInWorker("a\n1,2,3,4,5,6,7,8,9,10,11\n", ",", limits))
      expect([wide.reason, wide.line]).toEqual(["too-wide", 2])
    }))
})
