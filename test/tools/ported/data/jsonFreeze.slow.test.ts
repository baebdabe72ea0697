/**
 * Issue 47 item 6: read_json, query_json and format_json never block the event loop for more
 * than 100 ms, whatever the document: 10 MiB of JSON pretty-printed, narrowed by a pointer,
 * refused for a syntax error at its end or a pointer that names nothing. The answers and
 * messages are the ones the main thread gives; and a timeout around a call fires on time.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, Duration, Effect, Result, Exit, ManagedRuntime, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { DATA_FILE_MAX_BYTES } from "../../../../src/tools/ported/data/files.js"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { selectPointer } from "../../../../src/tools/ported/data/jsonPointer.js"
import { renderInWorker, renderOnMainThread, type RenderOptions } from "../../../../src/tools/ported/data/jsonRender.js"
import { textTools } from "../../../../src/tools/ported/text/index.js"
import { parseJsonLocated } from "../../../../src/tools/shared/jsonSyntax.js"
import { capOutput } from "../../../../src/tools/shared/outputCap.js"
import { MAX_BLOCK_MS, measureRepeatedBlocking } from "../../../helpers/loopDelay.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

const ws = makeTempDirSync("json-freeze-")
// one system for all calls, built (and its modules loaded) before any measurement
const runtime = ManagedRuntime.make(
  ToolSystem.layerNode({ builtins: false, tools: [...dataTools, ...textTools], workspace: Workspace.layerFixed(ws) })
)

const call = (name: string, args: Record<string, unknown>) => Effect.flatMap(ToolSystem, (system) => system.execute(name, args))

/** One call, repeated up to 3 times, with the least event-loop block seen. */
const measured = (name: string, args: Record<string, unknown>) =>
  measureRepeatedBlocking(() => runtime.runPromise(call(name, args)))

const REST = "pass a pointer to select a smaller part, e.g. \"/items/0\""

/** What the main thread answers (or refuses with), as the tools did before the worker. */
const onMain = (text: string, pointer?: string): string => {
  const parsed = parseJsonLocated(text)
  if (Result.isFailure(parsed)) return parsed.failure.message
  const selected = pointer === undefined ? Result.succeed(parsed.success) : selectPointer(parsed.success, pointer)
  return Result.isFailure(selected) ? selected.failure.message : capOutput(JSON.stringify(selected.success, null, 2), { atLine: true, rest: REST })
}

// 10 MiB (the most read_json reads) of small objects, one line: about 120,000 objects, 600,000 values
let doc = ""
let bad = ""
const expected: Record<string, string> = {}

beforeAll(async () => {
  const items: Array<string> = []
  let size = 2
  for (let i = 0; size < DATA_FILE_MAX_BYTES - 200; i++) {
    const item = JSON.stringify({ id: i, name: `user ${i}`, email: `u${i}@example.com`, tags: ["a", "b"], score: i / 3 })
    items.push(item)
    size += item.length + 1
  }
  doc = `[${items.join(",")}]`
  // a syntax error near the end: an object's closing brace missing
  bad = `${doc.slice(0, -2)}]`
  Fs.writeFileSync(Path.join(ws, "big.json"), doc)
  Fs.writeFileSync(Path.join(ws, "bad.json"), bad)
  // 256 KiB nested 256 deep (the most allowed): read at once, printed a hundred times as long (1-2 s of work)
  Fs.writeFileSync(Path.join(ws, "deep.json"), `[${Array.from({ length: 512 }, () => `${"[".repeat(255)}0${"]".repeat(255)}`).join(",")}]`)
  expected.whole = onMain(doc)
  expected.bad = onMain(bad)
  expected.index = onMain(doc, "/99999999")
  expected.key = onMain(doc, "/7/nope")
  Fs.writeFileSync(Path.join(ws, "warm.json"), "{\"a\": [1]}")
  await runtime.runPromise(call("read_json", { filepath: "warm.json" }))
  // the worker's path too (a text over the main thread's budget), and the copy of a text to shared memory
  await runtime.runPromise(call("query_json", { json: doc.slice(0, 100_000).replace(/,\{[^{]*$/, "]"), pointer: "/0" }))
}, 120_000)

afterAll(async () => {
  await runtime.dispose()
  Fs.rmSync(ws, { recursive: true, force: true })
})

describe("read_json: a 10 MiB file is answered as before, without blocking", () => {
  it("the whole document, pretty-printed and cut", async () => {
    expect(Fs.statSync(Path.join(ws, "big.json")).size).toBeLessThanOrEqual(DATA_FILE_MAX_BYTES)
    const { maxBlockMs, value } = await measured("read_json", { filepath: "big.json" })
    expect(value.output).toBe(expected.whole)
    expect(String(value.output)).toMatch(/\n\.\.\. \(cut after \d+ of \d+ characters; pass a pointer/)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)

  it("a part selected by a pointer", async () => {
    const { maxBlockMs, value } = await measured("read_json", { filepath: "big.json", pointer: "/1234" })
    expect(JSON.parse(String(value.output))).toEqual({ id: 1234, name: "user 1234", email: "u1234@example.com", tags: ["a", "b"], score: 1234 / 3 })
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)

  it("a syntax error at the end: its line, column and excerpt", async () => {
    const { maxBlockMs, value } = await measured("read_json", { filepath: "bad.json" })
    expect(expected.bad).toMatch(/^not valid JSON: line 1, column \d+: expected ',' or '}' after a property value, found '\]'\n {2}…/)
    expect(value.error).toBe(expected.bad)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)

  it("a pointer past the array's end, and a key the object does not have", async () => {
    for (const [pointer, message] of [["/99999999", expected.index], ["/7/nope", expected.key]] as const) {
      const { maxBlockMs, value } = await measured("read_json", { filepath: "big.json", pointer })
      expect(value.error, pointer).toBe(message)
      expect(maxBlockMs, pointer).toBeLessThan(MAX_BLOCK_MS)
    }
    expect(expected.key).toBe(
      "no value at \"/7/nope\": the object at \"/7\" has no key \"nope\" (its keys: \"id\", \"name\", \"email\", \"tags\", \"score\")"
    )
  }, 60_000)
})

describe("read_json: a document whose print is a hundred times its size, without blocking", () => {
  it("256 KiB nested 256 deep: printed and cut", async () => {
    const { maxBlockMs, value } = await measured("read_json", { filepath: "deep.json" })
    expect(String(value.output).startsWith(`[\n  [\n    [\n${" ".repeat(6)}[`)).toBe(true)
    expect(String(value.output)).toMatch(/\n\.\.\. \(cut after \d+ of \d{8} characters; pass a pointer/)
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)
})

describe("query_json and format_json: 10 MiB of text, without blocking", () => {
  it("query_json selects a part", async () => {
    const { maxBlockMs, value } = await measured("query_json", { json: doc, pointer: "/5/email" })
    expect(value.output).toBe("\"u5@example.com\"")
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)

  it("format_json prints it compact, cut", async () => {
    const { maxBlockMs, value } = await measured("format_json", { text: doc, indent: 0 })
    expect(value.output).toBe(capOutput(doc, { atLine: false, rest: "use query_json with a pointer to format a part" }))
    expect(maxBlockMs).toBeLessThan(MAX_BLOCK_MS)
  }, 60_000)
})

describe("a timeout around a call fires on time", () => {
  // read_json's timeout is later than the others': past the file's read (a few ms, and a pause of the
  // event loop then lets the timer win on any code), well within the 1-2 s the print of deep.json takes
  for (const [name, args, ms] of [
    ["read_json", { filepath: "deep.json" }, 250],
    ["query_json", { json: "", pointer: "/3" }, 100],
    ["format_json", { text: "" }, 100]
  ] as const) {
    it(`${name} on ${"filepath" in args ? args.filepath : "10 MiB"}: interrupted after ${ms} ms, during the parse`, async () => {
      const input = "json" in args ? { ...args, json: doc } : "text" in args ? { ...args, text: doc } : args
      const started = performance.now()
      const exit = await runtime.runPromiseExit(call(name, input).pipe(Effect.timeout(Duration.millis(ms))))
      const elapsed = performance.now() - started
      // a parse on the main thread holds the timer back until it ends, and the call then wins the race
      expect(Exit.isFailure(exit) && Option.exists(Cause.findErrorOption(exit.cause), Cause.isTimeoutError)).toBe(true)
      // on time: before the parse could have ended, with room for a loaded machine
      expect(elapsed).toBeLessThan(1000)
    }, 60_000)
  }
})

describe("the worker answers as the main thread does", () => {
  const options = (pointer?: string, indent = 2): RenderOptions => ({
    pointer,
    indent,
    cap: { atLine: indent > 0, rest: REST, maxChars: 40 }
  })
  const cases: ReadonlyArray<readonly [string, string | undefined, number?]> = [
    ["{\"a\": [1, 2, {\"b\": null}], \"c/d\": {\"e~f\": \"x\"}}", undefined],
    ["{\"a\": [1, 2, {\"b\": null}]}", "/a/2/b"],
    ["{\"a\": [1, 2, {\"b\": null}]}", "/a/2/b/c"],
    ["{\"a\": [1, 2]}", "/a/-"],
    ["{\"a\": [1, 2]}", "/a/01"],
    ["{\"a\": [1, 2]}", "/a/2"],
    ["{\"a\": []}", "/a/0"],
    ["{\"a\": {}}", "/a/x"],
    [JSON.stringify(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]))), "/zz"],
    ["{\"c/d\": {\"e~f\": {}}}", "/c~1d/e~0f/x"],
    ["{\"a\": 1}", "a"],
    ["{\"a\": 1}", "/~2"],
    ["{\"a\": 1", "a"],
    ["{\"a\": 1}", "#/a"],
    ["{\"a\": 1}", "#%zz"],
    ["[1, 2,]", undefined],
    ["", undefined],
    ["{\n  \"a\": 1,\n  \"b\": x\n}\n", undefined],
    [`{"t": "😀😀", "long": "${"y".repeat(100)}", x}`, undefined],
    [`[${"\"é\",".repeat(40)}\n  ${"0,".repeat(50)} 0 0]`, undefined],
    ["\"a\u0001\"", undefined],
    ["[\"\\u12g4\"]", undefined],
    [`${"[".repeat(257)}${"]".repeat(257)}`, undefined],
    [`${"[".repeat(256)}${"]".repeat(256)}`, undefined],
    [JSON.stringify({ list: Array.from({ length: 20 }, (_, i) => ({ i })) }), undefined],
    [JSON.stringify({ list: Array.from({ length: 20 }, (_, i) => ({ i })) }), undefined, 0],
    [JSON.stringify({ list: Array.from({ length: 20 }, (_, i) => ({ i })) }), undefined, 7]
  ]

  it.effect("outputs, cuts and every message alike", () =>
    Effect.gen(function*() {
      for (const [text, pointer, indent] of cases) {
        const main = Result.match(renderOnMainThread(text, options(pointer, indent)), { onFailure: (e) => e.message, onSuccess: (s) => s })
        const worker = yield* Effect.match(renderInWorker(text, options(pointer, indent)), { onFailure: (e) => e.message, onSuccess: (s) => s })
        expect(worker, `${text.slice(0, 60)} ${pointer}`).toBe(main)
      }
      // a file's bytes, with a byte-order mark and invalid UTF-8 (as `decodeUtf8` reads them)
      const bytes = Uint8Array.from([0xef, 0xbb, 0xbf, ...Buffer.from("{\"a\": \"x"), 0xff, ...Buffer.from("\", b}")])
      const main = Result.match(renderOnMainThread(new TextDecoder().decode(bytes), options()), { onFailure: (e) => e.message, onSuccess: (s) => s })
      expect(yield* Effect.flip(renderInWorker({ bytes }, options()))).toHaveProperty("message", main)
    }), 60_000)
})
