// A raw JSON-RPC stdio server whose every `tools/call` is answered with a JSON-RPC *error*
// (not an `isError` result) whose message carries ESC sequences, BEL, NUL, bidi controls and
// CR. `plain` has no outputSchema, `structured` has one (an error answer is not checked against
// it). The argument `size` pads the message with that many `x`.
import { createInterface } from "node:readline"

const DIRTY = "a\u001b[31mred\u001b[0m\u0007\u0000b\u202ec\u2066d\r\ne\rf\n\tg\u001b]0;title\u0007h"
const schema = { type: "object", properties: { size: { type: "number" } } }
const tools = [
  { name: "plain", description: "Fails", inputSchema: schema },
  { name: "structured", description: "Fails", inputSchema: schema, outputSchema: { type: "object", properties: {} } }
]
const write = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line)
  if (message.method === "initialize") {
    write({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "errorAnswers", version: "1.0.0" } } })
  } else if (message.method === "tools/list") {
    write({ id: message.id, result: { tools } })
  } else if (message.method === "tools/call") {
    const size = message.params.arguments?.size ?? 0
    write({ id: message.id, error: { code: -32603, message: `${DIRTY}${"x".repeat(size)}`, data: DIRTY } })
  }
})
