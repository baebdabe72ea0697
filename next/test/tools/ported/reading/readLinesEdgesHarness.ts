/**
 * What `readLinesEdges.test.ts` and `readLinesEdges.slow.test.ts` share: read_lines in a workspace
 * of files at the counting budget, and `fixedLines`, text of lines of one length.
 */
import { READ_LINES_COUNT_BYTES } from "../../../../src/tools/ported/reading/readLines.js"
import { call, fileWorkspace } from "./harness.js"

/** Lines of 64 bytes (63 "x" and a line feed): the first block holds exactly `FIRST_BLOCK_BYTES / 64` of them. */
export const LINE_BYTES = 64

export const fixedLines = (bytes: number, lineBytes = LINE_BYTES): Buffer => {
  const buffer = Buffer.alloc(bytes, "x")
  for (let i = lineBytes - 1; i < bytes; i += lineBytes) buffer[i] = 10
  return buffer
}

/**
 * The test file's workspace (`fileWorkspace`: call it at the file's top level), `read(args)`,
 * read_lines there, and `note(out)`, the last line of an answer.
 */
export const readLinesEdgesWorkspace = () => {
  const fixture = fileWorkspace("read-lines-edges-", ({ write }) => {
    // exactly the counting budget, and one byte less (its last line without a line feed)
    const budget = fixedLines(READ_LINES_COUNT_BYTES)
    write("budget.txt", budget)
    write("budget-less-one.txt", budget.subarray(0, READ_LINES_COUNT_BYTES - 1))
    write("one-line.txt", "only\n")
    write("crlf.txt", "ab\r\ncd\r\n")
  })
  return {
    fixture,
    read: (args: Record<string, unknown>) => call(fixture.ws, "read_lines", args),
    note: (out: string) => out.split("\n").at(-1)
  }
}
