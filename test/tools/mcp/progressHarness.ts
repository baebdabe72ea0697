/**
 * What the progress tests over MCP (`progress.test.ts`, `progressBridge.test.ts`) share: a tool
 * that reports three steps, and the messages a client's transport receives, read as they came.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { Effect, Schema } from "effect"
import { reportProgress, Tool } from "../../../src/index.js"

/** Three steps, each reported, 150 ms apart (more than the channel's interval: each one goes out). */
export const steps = Tool.make("steps", {
  description: "Works in three steps, reporting each",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () =>
    Effect.gen(function*() {
      yield* reportProgress({ progress: 1, total: 3, message: "first" })
      yield* Effect.sleep("150 millis")
      yield* reportProgress({ progress: 2, total: 3 })
      yield* Effect.sleep("150 millis")
      yield* reportProgress({ progress: 3, total: 3, message: "done" })
      return "stepped"
    })
})

/**
 * Every message `transport` (a connected client's) receives from now on, in order, as it came
 * off the wire: its handler (the client's) still gets each one after.
 */
export const receivedOn = (transport: Transport): ReadonlyArray<JSONRPCMessage> => {
  const received: Array<JSONRPCMessage> = []
  const handler = transport.onmessage
  transport.onmessage = (message, extra) => {
    received.push(message)
    handler?.(message, extra)
  }
  return received
}
