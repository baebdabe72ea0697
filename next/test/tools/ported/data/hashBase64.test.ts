import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { OUTPUT_MAX_CHARS } from "../../../../src/tools/shared/outputCap.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
import { runner, traversalOf, writeIn } from "./harness.js"

let base: string
let ws: string
const run = runner(dataTools, () => ws)

const BIN = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256))

beforeAll(() => {
  base = makeTempDirSync("ported-hash-")
  ws = Path.join(base, "ws")
  Fs.mkdirSync(ws)
  const write = writeIn(ws)
  write("hello.txt", "hello\n")
  write("empty.txt", "")
  write("bin.dat", BIN)
  Fs.mkdirSync(Path.join(ws, "dir"))
  writeIn(base)("outside.txt", "secret")
  Fs.symlinkSync(Path.join(base, "outside.txt"), Path.join(ws, "link-out"))
})

afterAll(() => {
  Fs.rmSync(base, { recursive: true, force: true })
})

const digest = (algorithm: string, data: string | Uint8Array) => Crypto.createHash(algorithm).update(data).digest("hex")

describe("hash_file", () => {
  it.effect("each algorithm, sha256 by default, binary and empty files", () =>
    Effect.gen(function*() {
      expect((yield* run("hash_file", { filepath: "hello.txt" })).output).toBe(
        "sha256 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  hello.txt (6 bytes)"
      )
      for (const algorithm of ["md5", "sha1", "sha256", "sha512"]) {
        const r = yield* run("hash_file", { filepath: "bin.dat", algorithm })
        expect(r.output).toBe(`${algorithm} ${digest(algorithm, BIN)}  bin.dat (3000 bytes)`)
      }
      expect((yield* run("hash_file", { filepath: "empty.txt", algorithm: "md5" })).output).toBe(
        "md5 d41d8cd98f00b204e9800998ecf8427e  empty.txt (0 bytes)"
      )
      expect((yield* run("hash_file", { filepath: "hello.txt", algorithm: "crc32" })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("streams a file larger than one chunk", () =>
    Effect.gen(function*() {
      const data = Buffer.alloc(3 * 1024 * 1024 + 17, 0x61)
      writeIn(ws)("big.dat", data)
      expect((yield* run("hash_file", { filepath: "big.dat" })).output).toBe(
        `sha256 ${digest("sha256", data)}  big.dat (${data.length} bytes)`
      )
    }))

  it.effect("missing file, directory, a path leading out", () =>
    Effect.gen(function*() {
      expect((yield* run("hash_file", { filepath: "nope" })).error).toBe("\"nope\" does not exist")
      expect((yield* run("hash_file", { filepath: "dir" })).error).toBe("\"dir\" is a directory, not a file")
      for (const filepath of ["../outside.txt", "link-out"]) {
        const exit = yield* Effect.exit(run("hash_file", { filepath }))
        expect(Option.isSome(traversalOf(exit)), filepath).toBe(true)
      }
    }))
})

describe("base64", () => {
  it.effect("encodes UTF-8 text and decodes it back, unicode included", () =>
    Effect.gen(function*() {
      expect((yield* run("base64", { text: "hello" })).output).toBe("aGVsbG8=")
      expect((yield* run("base64", { text: "", mode: "encode" })).output).toBe("")
      const text = "Zürich 東京 😀\r\n"
      const encoded = String((yield* run("base64", { text })).output)
      expect(encoded).toBe(Buffer.from(text).toString("base64"))
      expect((yield* run("base64", { text: encoded, mode: "decode" })).output).toBe(text)
    }))

  it.effect("decodes with white space, without padding, and in the URL-safe alphabet", () =>
    Effect.gen(function*() {
      expect((yield* run("base64", { text: "aGVs\nbG8=\n", mode: "decode" })).output).toBe("hello")
      expect((yield* run("base64", { text: "aGVsbG8", mode: "decode" })).output).toBe("hello")
      const urlSafe = Buffer.from("subjects?_d=>~").toString("base64url")
      expect(urlSafe).toMatch(/[-_]/)
      expect((yield* run("base64", { text: urlSafe, mode: "decode" })).output).toBe("subjects?_d=>~")
    }))

  it.effect("invalid Base64 is a clear error naming the first bad character", () =>
    Effect.gen(function*() {
      const cases: Array<[string, string]> = [
        ["aGVs!G8=", "not valid Base64: \"!\" at position 4 is not a Base64 character (A-Z a-z 0-9 + / or - _, and = at the end)"],
        ["aGVsb", "not valid Base64: 5 Base64 characters cannot encode whole bytes (one is missing or extra)"],
        ["aG=Vs", "not valid Base64: \"V\" at position 3 follows the \"=\" padding, which may only end the text"],
        ["aGV===", "not valid Base64: too much \"=\" padding (at position 5)"],
        ["a+b-", "not valid Base64: \"-\" at position 3 mixes the standard (+ /) and URL-safe (- _) alphabets"],
        ["aGVsbG8==", "not valid Base64: the \"=\" padding does not complete a group of 4 characters"],
        ["aGVs😀", "not valid Base64: \"😀\" at position 4 is not a Base64 character (A-Z a-z 0-9 + / or - _, and = at the end)"]
      ]
      for (const [text, message] of cases) {
        const r = yield* run("base64", { text, mode: "decode" })
        expect(r.errorCode, text).toBe("TOOL_ERROR")
        expect(r.error, text).toBe(message)
      }
      expect((yield* run("base64", { text: "aGVsbG8=", mode: "rot13" })).errorCode).toBe("INVALID_ARGUMENTS")
    }))

  it.effect("binary data is described with a hex preview, not returned as garbage", () =>
    Effect.gen(function*() {
      const r = yield* run("base64", { text: Buffer.from([0, 1, 2, 0xff]).toString("base64"), mode: "decode" })
      expect(r.output).toBe("The decoded data is 4 bytes of binary (not UTF-8 text). Bytes in hex: 00 01 02 ff")
      const big = yield* run("base64", { text: BIN.toString("base64"), mode: "decode" })
      expect(String(big.output)).toMatch(/^The decoded data is 3000 bytes of binary \(not UTF-8 text\)\. First 64 bytes in hex: 00 07 0e /)
    }))

  it.effect("the limits exactly: an answer of exactly the cap, a preview of exactly 64 bytes, every kind of white space", () =>
    Effect.gen(function*() {
      const most = (OUTPUT_MAX_CHARS / 4) * 3
      const encoded = yield* run("base64", { text: "y".repeat(most) })
      expect(String(encoded.output)).toHaveLength(OUTPUT_MAX_CHARS)
      expect((yield* run("base64", { text: "y".repeat(most + 1) })).errorCode).toBe("TOOL_ERROR")
      const exactly = yield* run("base64", { text: Buffer.from("z".repeat(OUTPUT_MAX_CHARS)).toString("base64"), mode: "decode" })
      expect(exactly.output).toBe("z".repeat(OUTPUT_MAX_CHARS))
      const past = yield* run("base64", { text: Buffer.from("z".repeat(OUTPUT_MAX_CHARS + 1)).toString("base64"), mode: "decode" })
      expect(past.error).toContain(`the decoded text is ${OUTPUT_MAX_CHARS + 1} characters, over the ${OUTPUT_MAX_CHARS}-character limit`)
      const sixtyFour = Buffer.alloc(64, 0)
      expect((yield* run("base64", { text: sixtyFour.toString("base64"), mode: "decode" })).output).toBe(
        `The decoded data is 64 bytes of binary (not UTF-8 text). Bytes in hex: ${Array.from({ length: 64 }, () => "00").join(" ")}`
      )
      expect(String((yield* run("base64", { text: Buffer.alloc(65, 0).toString("base64"), mode: "decode" })).output)).toMatch(
        /^The decoded data is 65 bytes of binary \(not UTF-8 text\)\. First 64 bytes in hex: (00 ){63}00$/
      )
      expect((yield* run("base64", { text: " a\tGV\rs\nbG8= \r\n", mode: "decode" })).output).toBe("hello")
      // one = completes a group of 3 characters, two a group of 2
      expect((yield* run("base64", { text: "aGk=", mode: "decode" })).output).toBe("hi")
      expect((yield* run("base64", { text: "aA==", mode: "decode" })).output).toBe("h")
      expect((yield* run("base64", { text: "aGk==", mode: "decode" })).error).toBe(
        "not valid Base64: the \"=\" padding does not complete a group of 4 characters"
      )
      // the URL-safe alphabet alone, and after characters common to both
      expect((yield* run("base64", { text: "_-_-", mode: "decode" })).errorCode).toBe(null)
      expect((yield* run("base64", { text: "ab/_", mode: "decode" })).error).toBe(
        "not valid Base64: \"_\" at position 3 mixes the standard (+ /) and URL-safe (- _) alphabets"
      )
    }))

  it.effect("results over the answer limit are refused with how to split the work", () =>
    Effect.gen(function*() {
      const long = "x".repeat(OUTPUT_MAX_CHARS)
      const r = yield* run("base64", { text: long })
      expect(r.error).toBe(
        `the Base64 text would be ${Math.ceil(OUTPUT_MAX_CHARS / 3) * 4} characters, over the ${OUTPUT_MAX_CHARS}-character ` +
          `limit of one answer; encode parts of at most ${(OUTPUT_MAX_CHARS / 4) * 3} bytes of UTF-8 each`
      )
      const decoded = yield* run("base64", { text: Buffer.from(long + long).toString("base64"), mode: "decode" })
      expect(decoded.error).toContain(`over the ${OUTPUT_MAX_CHARS}-character limit of one answer; decode the Base64 in parts`)
      const huge = yield* run("base64", { text: Buffer.alloc(4 * 1024 * 1024, 0x61).toString("base64"), mode: "decode" })
      expect(huge.error).toContain(`the decoded text is more than ${OUTPUT_MAX_CHARS} characters`)
    }))
})
