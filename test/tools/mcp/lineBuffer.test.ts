/**
 * The framing of a server's stdout: newline-delimited lines (a trailing CR dropped), split
 * anywhere between chunks, at most the cap of unread bytes.
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
