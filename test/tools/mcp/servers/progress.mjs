// A stdio server whose tools report progress when the call asks for it (`_meta.progressToken`):
// `steps` three steps 150 ms apart (its first message with an escape sequence and a bidi
// control), then "stepped"; `hostile` 900 notifications at once (some going back, one with a
// 100,000-character message, some with tokens that are not the call's), then "survived";
// `late` answers, then reports. Speaks 2025-11-25 (`initialize`) and 2026-07-28
// (`server/discover`, the `resultType` of each result). A raw JSON-RPC server over stdio.
import { createInterface } from "node:readline"

const tools = ["steps", "hostile", "late"].map((name) => ({
  name,
  description: `The ${name} tool`,
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: true }
}))

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
const answer = (id, result) => send({ id, result })
const progress = (progressToken, progress, extra = {}) =>
  send({ method: "notifications/progress", params: { progressToken, progress, ...extra } })
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const call = async (id, name, token, complete) => {
  if (name === "steps") {
    if (token !== undefined) progress(token, 1, { total: 3, message: "first \u001b[31mred\u001b[0m \u202eevil" })
    await sleep(150)
    if (token !== undefined) progress(token, 2, { total: 3 })
    await sleep(150)
    if (token !== undefined) progress(token, 3, { total: 3, message: "done" })
    answer(id, { ...complete, content: [{ type: "text", text: "stepped" }] })
  } else if (name === "hostile") {
    if (token !== undefined) {
      progress(token, 5, { total: 1000, message: "x".repeat(100_000) })
      for (let i = 0; i < 880; i++) progress(token, i % 10 === 0 ? 1 : 5 + i, { total: 1000 })
      progress("ets-999999", 10_000)
      progress(987654, 10_000)
      progress(token, "not a number")
      progress(token, 900, { total: 1000, message: "last" })
    }
    answer(id, { ...complete, content: [{ type: "text", text: "survived" }] })
  } else {
    answer(id, { ...complete, content: [{ type: "text", text: "answered" }] })
    if (token !== undefined) progress(token, 1, { message: "after the answer" })
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line)
  if (message.id === undefined) return
  const modern = message.params?._meta?.["io.modelcontextprotocol/protocolVersion"] !== undefined
  const complete = modern ? { resultType: "complete" } : {}
  const info = { name: "progress", version: "1.0.0" }
  if (message.method === "initialize") {
    answer(message.id, { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: info })
  } else if (message.method === "server/discover") {
    answer(message.id, { ...complete, ttlMs: 0, cacheScope: "private", supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, serverInfo: info })
  } else if (message.method === "tools/list") {
    answer(message.id, { ...complete, ...(modern ? { ttlMs: 0, cacheScope: "private" } : {}), tools })
  } else if (message.method === "tools/call") {
    void call(message.id, message.params.name, message.params._meta?.progressToken, complete)
  } else {
    send({ id: message.id, error: { code: -32601, message: "Method not found" } })
  }
})
