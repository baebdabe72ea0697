// A server whose tools' input schemas make a validator work hard (issue 47, item 2):
// `bigEnum` (an enum of 40,000 strings), `recursive` (a recursive anyOf: both branches recurse,
// so an argument that fails at the bottom makes a naive validator try 2^depth paths),
// `unique` (uniqueItems over objects: pairwise comparison) and `dialect2020` (a 2020-12 schema:
// ajv compiles that draft's meta-schemas on first use, 50-300 ms at once on a loaded machine).
// Answers a call with the tool's name and how many characters its arguments take. A raw
// JSON-RPC server over stdio.
import { createInterface } from "node:readline"

const node = { anyOf: [
  { type: "object", properties: { a: { $ref: "#/definitions/n" } } },
  { type: "object", properties: { a: { $ref: "#/definitions/n" } }, required: ["b"] }
] }
const tools = [
  {
    name: "bigEnum",
    description: "an enum of 40,000 members",
    inputSchema: { type: "object", properties: { color: { type: "string", enum: Array.from({ length: 40_000 }, (_, i) => `c${i}`) } }, required: ["color"] }
  },
  {
    name: "recursive",
    description: "a recursive anyOf",
    inputSchema: { type: "object", properties: { n: { $ref: "#/definitions/n" } }, definitions: { n: node } }
  },
  {
    name: "dialect2020",
    description: "a 2020-12 schema: its meta-schema is compiled at the bridge's start",
    inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] } } }
  },
  {
    name: "unique",
    description: "unique objects",
    inputSchema: { type: "object", properties: { items: { type: "array", uniqueItems: true, items: { type: "object" } } } }
  }
]

const answer = (id, result) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`)
createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line)
  if (message.method === "initialize") {
    answer(message.id, { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1.0.0" } })
  } else if (message.method === "tools/list") {
    answer(message.id, { tools })
  } else if (message.method === "tools/call") {
    const text = `${message.params.name} ${JSON.stringify(message.params.arguments ?? {}).length}`
    answer(message.id, { content: [{ type: "text", text }] })
  }
})
