/**
 * `text.ts`: the UTF-8 helpers of the file tools (binary detection on a file's first block,
 * decoding whole and cut texts).
 */
import { describe, expect, it } from "@effect/vitest"
import { decodeUtf8, decodeUtf8Prefix, looksBinary, NUL_WINDOW_BYTES } from "../../../src/tools/shared/text.js"

describe("looksBinary", () => {
  const encode = (text: string) => new TextEncoder().encode(text)

  it("a NUL byte in the first 8 KiB is binary; one past them is not looked at", () => {
    expect(looksBinary(encode("text\u0000more"))).toBe(true)
    const late = new Uint8Array(NUL_WINDOW_BYTES + 1).fill(0x61)
    late[NUL_WINDOW_BYTES] = 0
    expect(looksBinary(late)).toBe(false)
    const last = new Uint8Array(NUL_WINDOW_BYTES).fill(0x61)
    last[NUL_WINDOW_BYTES - 1] = 0
    expect(looksBinary(last)).toBe(true)
  })

  it("invalid UTF-8 is binary; a character cut at the end of an incomplete block is not", () => {
    expect(looksBinary(encode("plain text ✓"))).toBe(false)
    expect(looksBinary(new Uint8Array([0x61, 0xff, 0x62]))).toBe(true)
    const cut = encode("ab✓").subarray(0, 4)
    expect(looksBinary(cut, false)).toBe(false)
    expect(looksBinary(cut)).toBe(true)
    expect(looksBinary(cut, true)).toBe(true)
  })
})

describe("decoding", () => {
  it("decodeUtf8 drops a BOM and replaces invalid bytes", () => {
    expect(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe("a")
    expect(decodeUtf8(new Uint8Array([0x61, 0xff]))).toBe("a\ufffd")
  })

  it("decodeUtf8Prefix ends on a whole character", () => {
    const bytes = new TextEncoder().encode("ab✓c")
    expect(decodeUtf8Prefix(bytes, 3)).toBe("ab")
    expect(decodeUtf8Prefix(bytes, 5)).toBe("ab✓")
    expect(decodeUtf8Prefix(bytes, 6)).toBe("ab✓c")
  })
})
