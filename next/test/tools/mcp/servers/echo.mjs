// A well-behaved stdio MCP server for the bridge tests, plus a few tools that misbehave on
// request. Flags: --start-log FILE (appends "start <pid>" at each start), --spawn-child
// (starts a `sleep` child that must end with the server), --die-after MS (exits on its own),
// --die-once FILE (with --die-after: only the start that creates FILE exits, so a restarted
// server stays up however slow the start was), --cancel-log FILE (appends "cancelled <ms>"
// when a `slow` call is cancelled by the client).
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js"
import { spawn } from "node:child_process"
import { appendFileSync, writeFileSync } from "node:fs"

const flag = (name) => {
  const i = process.argv.indexOf(name)
  return i === -1 ? undefined : process.argv[i + 1] ?? ""
}
const startLog = flag("--start-log")
if (startLog !== undefined) appendFileSync(startLog, `start ${process.pid}\n`)
const child = process.argv.includes("--spawn-child") ? spawn("sleep", ["1000"], { stdio: "ignore" }) : undefined
const cancelLog = flag("--cancel-log")
const dieAfter = flag("--die-after")
const dieOnce = flag("--die-once")
/** Creates `file`; false when an earlier start created it already. */
const firstToCreate = (file) => {
  try {
    writeFileSync(file, `${process.pid}\n`, { flag: "wx" })
    return true
  } catch (error) {
    if (error.code === "EEXIST") return false
    throw error
  }
}
if (dieAfter !== undefined && (dieOnce === undefined || firstToCreate(dieOnce))) {
  setTimeout(() => process.exit(7), Number(dieAfter))
}

const tools = [
  {
    name: "echo",
    description: "Echoes its text",
    inputSchema: { type: "object", properties: { text: { type: "string", minLength: 1 } }, required: ["text"] },
    annotations: { readOnlyHint: true }
  },
  {
    name: "add",
    description: "Adds two numbers",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" }, label: { type: "string", pattern: "^(a+)+$" } },
      required: ["a", "b"]
    },
    annotations: { readOnlyHint: true }
  },
  {
    name: "fail",
    description: "Always reports an error (its text, when given)",
    inputSchema: { type: "object", properties: { text: { type: "string" } } }
  },
  {
    name: "refuse",
    description: "Answers with a JSON-RPC error of the given code, message and data",
    inputSchema: {
      type: "object",
      properties: { code: { type: "integer" }, message: { type: "string" }, data: {} },
      required: ["code", "message"]
    },
    annotations: { readOnlyHint: true }
  },
  {
    name: "big",
    description: "Returns n characters",
    inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    annotations: { readOnlyHint: true }
  },
  {
    name: "slow",
    description: "Answers after ms milliseconds",
    inputSchema: { type: "object", properties: { ms: { type: "integer" } }, required: ["ms"] },
    annotations: { readOnlyHint: true }
  },
  { name: "crash", description: "Exits in the middle of the call", inputSchema: { type: "object" } },
  { name: "pids", description: "The server's pid and its child's", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
  { name: "write", description: "Pretends to write (destructive)", inputSchema: { type: "object" } },
  { name: "image", description: "Returns an image and a text", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }
]

const text = (t) => ({ content: [{ type: "text", text: t }] })

const server = new Server({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {}
  switch (request.params.name) {
    case "echo":
      return text(String(args.text))
    case "add":
      return text(String(args.a + args.b))
    case "fail":
      return { content: [{ type: "text", text: args.text ?? "the disk is on fire" }], isError: true }
    case "refuse":
      throw new McpError(args.code, args.message, args.data)
    case "big":
      return text("x".repeat(args.n))
    case "slow":
      if (cancelLog !== undefined) extra.signal.addEventListener("abort", () => appendFileSync(cancelLog, `cancelled ${args.ms}\n`))
      await new Promise((resolve) => setTimeout(resolve, args.ms))
      return text(`slept ${args.ms}`)
    case "crash":
      process.stderr.write("crashing on purpose\n")
      setTimeout(() => process.exit(5), 10)
      return new Promise(() => {})
    case "pids":
      return text(JSON.stringify({ pid: process.pid, child: child?.pid ?? null }))
    case "write":
      return text("written")
    case "image":
      return { content: [{ type: "image", data: "aGVsbG8=", mimeType: "image/png" }, { type: "text", text: "a picture" }] }
    default:
      return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true }
  }
})
await server.connect(new StdioServerTransport())
