/**
 * The `mcp` command run in the test process on streams of its own (`process.stdin` and
 * `process.stdout` replaced for the test, put back after it), with an MCP client connected to it.
 */
import { afterEach } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { PassThrough } from "node:stream"
import { StreamClientTransport } from "../helpers/streamClientTransport.js"
import { cliInProcess } from "./helpers.js"

/** Puts the process's own stdin and stdout back after each test of the file that calls it. */
export const restoreProcessStreams = () => {
  const saved = { stdin: Object.getOwnPropertyDescriptor(process, "stdin"), stdout: Object.getOwnPropertyDescriptor(process, "stdout") }
  afterEach(() => {
    if (saved.stdin !== undefined) Object.defineProperty(process, "stdin", saved.stdin)
    if (saved.stdout !== undefined) Object.defineProperty(process, "stdout", saved.stdout)
  })
}

/** `process.stdin` and `process.stdout` replaced by fresh streams for the rest of the test. */
export const ownStreams = () => {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  Object.defineProperty(process, "stdin", { configurable: true, enumerable: true, get: () => stdin })
  Object.defineProperty(process, "stdout", { configurable: true, enumerable: true, get: () => stdout })
  return { stdin, stdout }
}

/** `mcp ARGS...` in this process on fresh streams, with a client named `clientName` connected. */
export const serveInProcess = async (clientName: string, ...args: Array<string>) => {
  const { stdin, stdout } = ownStreams()
  const done = cliInProcess("mcp", ...args)
  const client = new Client({ name: clientName, version: "1.0.0" })
  const connected = client.connect(new StreamClientTransport(stdout, stdin)).then(() => undefined)
  // a command that ends at once (a usage error) would leave the client waiting
  const ended = await Promise.race([connected, done])
  if (ended !== undefined) throw new Error(`mcp ended before serving: ${JSON.stringify(ended)}`)
  return { client, done, end: () => stdin.end() }
}

/** The text parts of a tool's answer, joined. */
export const textOf = (result: Awaited<ReturnType<Client["callTool"]>>): string => {
  const content: unknown = result.content
  if (!Array.isArray(content)) return ""
  return content.map((part: unknown) =>
    typeof part === "object" && part !== null && "text" in part && typeof part.text === "string" ? part.text : ""
  ).join("")
}
