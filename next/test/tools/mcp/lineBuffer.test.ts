/**
 * The framing of a server's stdout: newline-delimited lines (a trailing CR dropped), split
 * anywhere between chunks, at most the cap of unread bytes, and a long line in many small
 * chunks joined once (not copied again with each chunk).
 */
import { describe, expect, it } from "vitest"
import { makeLineBuffer } from "../../../src/tools/mcp/lineBuffer.js"

const all = (buffer: ReturnType<typeof makeLineBuffer>) => {
  const lines: Array<string> = []
  for (let line = buffer.next(); line !== undefined; line = buffer.next()) lines.push(line)
  return lines
}

describe("makeLineBuffer", () => {
  it("gives whole lines only, in order, without their LF or CRLF", () => {
    const buffer = makeLineBuffer(1024)
    expect(buffer.next()).toBeUndefined()
    expect(buffer.append(Buffer.from('{"a":1}\n{"b":'))).toBe(true)
    expect(all(buffer)).toEqual(['{"a":1}'])
    expect(buffer.append(Buffer.from('2}\r\n\n"c\r"\n'))).toBe(true)
    // an empty line is a line; a CR inside a line stays
    expect(all(buffer)).toEqual(['{"b":2}', "", '"c\r"'])
    expect(buffer.next()).toBeUndefined()
  })

  it("joins a line split inside a multi-byte character", () => {
    const buffer = makeLineBuffer(1024)
    const bytes = Buffer.from("héllo ✓\n")
    for (const byte of bytes) buffer.append(Buffer.from([byte]))
    expect(all(buffer)).toEqual(["héllo ✓"])
  })

  it("refuses a chunk that would put the unread bytes over the cap, and drops what it held", () => {
    const buffer = makeLineBuffer(8)
    expect(buffer.append(Buffer.from("12345678"))).toBe(true)
    expect(buffer.append(Buffer.from("9"))).toBe(false)
    expect(buffer.next()).toBeUndefined()
    // what was read does not count: lines of the cap's length, one after another
    expect(buffer.append(Buffer.from("1234567\n"))).toBe(true)
    expect(all(buffer)).toEqual(["1234567"])
    expect(buffer.append(Buffer.from("abcdefg\n"))).toBe(true)
    expect(all(buffer)).toEqual(["abcdefg"])
  })
})

describe("a long line in small chunks", () => {
  it("is joined once, not copied again at each chunk: 4 MiB in 1 KiB chunks takes well under half a second", () => {
    const buffer = makeLineBuffer(10 * 1024 * 1024)
    const piece = Buffer.alloc(1024, 0x78)
    const started = performance.now()
    let taken = 0
    for (let i = 0; i < 4096; i++) {
      if (buffer.append(piece) && buffer.next() === undefined) taken += 1
    }
    expect(taken).toBe(4096)
    expect(buffer.append(Buffer.from("\nnext"))).toBe(true)
    expect(buffer.next()?.length).toBe(4 * 1024 * 1024)
    expect(buffer.next()).toBeUndefined()
    expect(buffer.append(Buffer.from("\n"))).toBe(true)
    expect(buffer.next()).toBe("next")
    expect(performance.now() - started).toBeLessThan(500)
  })

  it("counts the bytes kept aside toward the cap", () => {
    const buffer = makeLineBuffer(8)
    expect(buffer.append(Buffer.from("1234"))).toBe(true)
    expect(buffer.next()).toBeUndefined()
    expect(buffer.append(Buffer.from("5678"))).toBe(true)
    expect(buffer.append(Buffer.from("9\n"))).toBe(false)
    expect(buffer.next()).toBeUndefined()
    expect(buffer.append(Buffer.from("ab\ncd"))).toBe(true)
    expect(all(buffer)).toEqual(["ab"])
    expect(buffer.append(Buffer.from("efgh\n"))).toBe(true)
    expect(all(buffer)).toEqual(["cdefgh"])
  })
})

describe("makeLineBuffer's look ahead", () => {
  it("gives the next whole line's length (its break included) and its bytes without the break", () => {
    const buffer = makeLineBuffer(1024)
    buffer.append(Buffer.from("ab"))
    expect(buffer.nextLength()).toBeUndefined()
    buffer.append(Buffer.from("c\r\nd\n"))
    expect(buffer.nextLength()).toBe(5)
    expect(buffer.nextBytes()?.toString()).toBe("abc")
    expect(buffer.nextLength()).toBe(2)
    expect(buffer.next()).toBe("d")
    expect(buffer.nextLength()).toBeUndefined()
  })
})
