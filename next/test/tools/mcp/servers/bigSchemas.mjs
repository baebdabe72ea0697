// A server whose tools' input schemas are too big to compile on our side: `wide` (3,000
// properties), `deep` (nested 100,000 levels, written as a string: no JSON.stringify could),
// then `many0`..`many21` (costing 481 each with the additionalProperties the bridge adds:
// 10,582 together, past the listing's budget of 10,000) and
// a small `fine`. Answers a call with the tool's name. A raw JSON-RPC server over stdio.
import { createInterface } from "node:readline"

const object = (properties) => ({ type: "object", properties })
const wide = object(Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}`, { type: "string" }])))
const depth = 100_000
const deep = `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${"}}".repeat(depth)}`
const many = (i) => ({ name: `many${i}`, description: "big", inputSchema: object(Object.fromEntries(Array.from({ length: 478 }, (_, j) => [`p${j}`, {}]))) })
const listed = [
  { name: "wide", description: "too wide", inputSchema: wide },
  "DEEP",
  ...Array.from({ length: 22 }, (_, i) => many(i)),
  { name: "fine", description: "small", inputSchema: object({ text: { type: "string" } }) }
]
const listing = `[${listed.map((t) => (t === "DEEP" ? `{"name":"deep","description":"too deep","inputSchema":${deep}}` : JSON.stringify(t))).join(",")}]`

const answer = (id, result) => process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}\n`)
createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line)
  if (message.method === "initialize") {
    answer(message.id, JSON.stringify({ protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "big", version: "1.0.0" } }))
  } else if (message.method === "tools/list") {
    answer(message.id, `{"tools":${listing}}`)
  } else if (message.method === "tools/call") {
    answer(message.id, JSON.stringify({ content: [{ type: "text", text: message.params.name }] }))
  }
})
