/**
 * The client's side of a stdio MCP connection over two streams of the test's own, for running
 * the `mcp` command in the test process.
 */
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import type { Readable, Writable } from "node:stream"

/** Newline-delimited JSON-RPC: messages read from `input`, sent to `output`. */
export class StreamClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void
  onclose?: () => void
  onerror?: (error: Error) => void
  private readonly buffer = new ReadBuffer()
  constructor(private readonly input: Readable, private readonly output: Writable) {}
  start(): Promise<void> {
    this.input.on("data", (chunk: Buffer) => {
      this.buffer.append(chunk)
      for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) {
        this.onmessage?.(message)
      }
    })
    return Promise.resolve()
  }
  send(message: JSONRPCMessage): Promise<void> {
    this.output.write(serializeMessage(message))
    return Promise.resolve()
  }
  close(): Promise<void> {
    this.output.end()
    this.onclose?.()
    return Promise.resolve()
  }
}
