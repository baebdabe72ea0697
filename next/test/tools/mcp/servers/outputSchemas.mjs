// A server whose tools' output schemas are hostile or plain (issue 47, item 2, outputs):
// `bigEnum` (an enum of 40,000 strings), `recursive` (a recursive anyOf: structured content that
// fails at the bottom makes a naive validator try 2^depth paths), `huge` (2,000 properties: past
// the cost of one schema; the SDK's ajv compiled it in 0.66 s), `badRef` (a $ref that leads
// outside the schema), `unique` (uniqueItems over objects: pairwise comparison), `shaped`
// ({ n: number }), `tasks` (requires task-based execution) and `slow` (no output schema; answers
// after `ms`). A call answers with `{ out }` as its structured content, or, when asked `{ count }`,
// with `{ items }`, `count` distinct objects; neither, no structured content at all. A raw
// JSON-RPC server over stdio.
import { createInterface } from "node:readline"

const node = { anyOf: [
  { type: "object", properties: { a: { $ref: "#/definitions/n" } } },
  { type: "object", properties: { a: { $ref: "#/definitions/n" } }, required: ["b"] }
] }
const input = { type: "object", properties: { out: {}, count: { type: "integer" }, ms: { type: "integer" } } }
const output = (properties, extra = {}) => ({ type: "object", properties, ...extra })
const tools = [
  {
    name: "bigEnum",
    description: "an output enum of 40,000 members",
    inputSchema: input,
    outputSchema: output({ color: { type: "string", enum: Array.from({ length: 40_000 }, (_, i) => `c${i}`) } }, { required: ["color"] })
  },
  { name: "recursive", description: "a recursive anyOf", inputSchema: input, outputSchema: output({ n: { $ref: "#/definitions/n" } }, { definitions: { n: node } }) },
  {
    name: "huge",
    description: "2,000 properties",
    inputSchema: input,
    outputSchema: output(Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`p${i}`, { type: "string" }])))
  },
  { name: "badRef", description: "a $ref outside the schema", inputSchema: input, outputSchema: output({ a: { $ref: "https://example.com/s.json" } }) },
  { name: "unique", description: "unique objects", inputSchema: input, outputSchema: output({ items: { type: "array", uniqueItems: true, items: { type: "object" } } }) },
  { name: "shaped", description: "{ n: number }", inputSchema: input, outputSchema: output({ n: { type: "number" } }, { required: ["n"] }) },
  { name: "tasks", description: "requires tasks", inputSchema: input, execution: { taskSupport: "required" } },
  { name: "slow", description: "answers after ms", inputSchema: input }
]

const answer = (id, result) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`)
const result = (args) => {
  if (args.count !== undefined) return { content: [{ type: "text", text: `${args.count} items` }], structuredContent: { items: Array.from({ length: args.count }, (_, k) => ({ k })) } }
  if (args.out !== undefined) return { content: [{ type: "text", text: JSON.stringify(args.out) }], structuredContent: args.out }
  return { content: [{ type: "text", text: "no structured content" }] }
}
createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line)
  if (message.method === "initialize") {
    answer(message.id, { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "outputs", version: "1.0.0" } })
  } else if (message.method === "tools/list") {
    answer(message.id, { tools })
  } else if (message.method === "tools/call") {
    const args = message.params.arguments ?? {}
    if (args.ms !== undefined) setTimeout(() => answer(message.id, result(args)), args.ms)
    else answer(message.id, result(args))
  }
})
