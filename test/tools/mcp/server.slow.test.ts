/**
 * Our registry served over stdio (`runMcpCommand`, as `effect-tool-system mcp` runs it),
 * driven by the SDK's own `Client`: tools/list in MCP's shape, tools/call through every
 * gate, errors as `isError` results led by their code, confirmation by elicitation, a
 * traversal attempt answered as an error while the server keeps serving, and bridged tools
 * served back out, with their changes announced and their rug-pull hold kept.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { replyText as text } from "./replyText.js"
import { tempDir } from "../../helpers/tempDir.js"
import { alive, eventually, nodeServer } from "./helpers.js"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../..")
const script = path.join(root, "test/tools/mcp/servers/serveToolSystem.ts")

/** Our server as a child process, and an SDK client connected to it (closed with the scope). */
const connect = (
  args: ReadonlyArray<string>,
  options: { elicit?: (message: string) => boolean; onToolsChanged?: () => void } = {}
) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "tsx", script, ...args],
        cwd: root,
        stderr: "pipe"
      })
      const client = new Client(
        { name: "test-client", version: "1.0.0" },
        { capabilities: options.elicit === undefined ? {} : { elicitation: {} } }
      )
      const elicit = options.elicit
      if (elicit !== undefined) {
        client.setRequestHandler(ElicitRequestSchema, (request) =>
          Promise.resolve(
            elicit(request.params.message) ? { action: "accept", content: { confirm: true } } : { action: "decline" }
          ))
      }
      const onToolsChanged = options.onToolsChanged
      if (onToolsChanged !== undefined) {
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => onToolsChanged())
      }
      // anything on the server's stdout that is not a JSON-RPC message shows up here
      const errors: Array<string> = []
      client.onerror = (error) => errors.push(error.message)
      // the server's stderr (its logs) is drained, and shown if it ends before the test closes it
      let stderr = ""
      let closing = false
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000)
      })
      client.onclose = () => {
        if (!closing) process.stderr.write(`our MCP server closed the connection; its stderr:\n${stderr}\n`)
      }
      await client.connect(transport, { timeout: 20_000 })
      const close = () => {
        closing = true
        return client.close()
      }
      return { client, pid: transport.pid ?? 0, errors, close }
    }),
    ({ close }) => Effect.promise(close)
  )

describe("effect-tool-system mcp", () => {
  it.live("lists the tools, calls them through the gates, and answers a traversal with an error while it keeps serving", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-serve-")
      const outside = yield* tempDir("mcp-outside-")
      fs.writeFileSync(path.join(ws, "hello.txt"), "hello from the workspace\n")
      fs.writeFileSync(path.join(outside, "secret.txt"), "TOP-SECRET-CONTENT\n")
      fs.symlinkSync(path.join(outside, "secret.txt"), path.join(ws, "link.txt"))
      const { client, close, errors, pid } = yield* connect([ws])
      const { tools } = yield* Effect.promise(() => client.listTools())
      const readFile = tools.find((t) => t.name === "read_file")
      expect(readFile?.annotations).toEqual({
        title: "Read file",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false
      })
      expect(readFile?.inputSchema.type).toBe("object")
      expect(tools.find((t) => t.name === "write_file")?.annotations?.destructiveHint).toBe(true)
      expect(tools.find((t) => t.name === "write_file")?.annotations?.idempotentHint).toBe(false)

      const ok = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { filepath: "hello.txt" } }))
      expect(ok.isError).toBeUndefined()
      expect(text(ok)).toContain("hello from the workspace")

      for (const filepath of ["../" + path.basename(outside) + "/secret.txt", path.join(outside, "secret.txt"), "link.txt"]) {
        const escape = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { filepath } }))
        expect(escape.isError).toBe(true)
        expect(text(escape)).toMatch(/^PATH_TRAVERSAL: the path .* is outside the workspace/)
        expect(text(escape)).not.toContain("TOP-SECRET")
      }

      const bad = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { nope: 1 } }))
      expect(bad.isError).toBe(true)
      expect(text(bad)).toMatch(/^INVALID_ARGUMENTS: /)
      const missing = yield* Effect.promise(() => client.callTool({ name: "no_such_tool", arguments: {} }))
      expect(text(missing)).toMatch(/^TOOL_NOT_FOUND: /)
      // no elicitation capability and no --yes: the call waits for a confirmation it cannot get
      const unconfirmed = yield* Effect.promise(() =>
        client.callTool({ name: "write_file", arguments: { filepath: "new.txt", content: "x" } })
      )
      expect(unconfirmed.isError).toBe(true)
      expect(text(unconfirmed)).toBe("CONFIRMATION_REQUIRED: Confirmation required")
      expect(fs.existsSync(path.join(ws, "new.txt"))).toBe(false)

      // still serving, same process
      expect(alive(pid)).toBe(true)
      const again = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { filepath: "hello.txt" } }))
      expect(text(again)).toContain("hello from the workspace")
      expect(errors).toEqual([])
      yield* Effect.promise(close)
      expect(yield* eventually(() => !alive(pid))).toBe(true)
    }), 60_000)

  it.live("asks through elicitation when the client supports it; explore mode lists and allows only read-only tools", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-serve-")
      const asked: Array<string> = []
      const { client } = yield* connect([ws], {
        elicit: (message) => {
          asked.push(message)
          return !message.includes("refused.txt")
        }
      })
      const yes = yield* Effect.promise(() =>
        client.callTool({ name: "write_file", arguments: { filepath: "asked.txt", content: "yes" } })
      )
      expect(yes.isError).toBeUndefined()
      expect(fs.readFileSync(path.join(ws, "asked.txt"), "utf8")).toBe("yes")
      const no = yield* Effect.promise(() =>
        client.callTool({ name: "write_file", arguments: { filepath: "refused.txt", content: "no" } })
      )
      expect(text(no)).toMatch(/^CONFIRMATION_REQUIRED: /)
      expect(fs.existsSync(path.join(ws, "refused.txt"))).toBe(false)
      expect(asked[0]).toContain(`Run the tool "write_file" with {"filepath":"asked.txt","content":"yes"}?`)

      const explore = yield* connect([ws, "explore", "yes"])
      const names = (yield* Effect.promise(() => explore.client.listTools())).tools.map((t) => t.name)
      expect(names).toContain("read_file")
      expect(names).not.toContain("write_file")
      const blocked = yield* Effect.promise(() =>
        explore.client.callTool({ name: "write_file", arguments: { filepath: "x.txt", content: "x" } })
      )
      expect(text(blocked)).toMatch(/^MODE_BLOCKED: /)
    }), 60_000)

  it.live("with --yes and --mcp-config: confirms every call, serves bridged tools, and ends their servers when the client goes away", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-serve-")
      const config = path.join(ws, "mcp.json")
      const log = path.join(ws, "starts.log")
      fs.writeFileSync(config, JSON.stringify({ mcpServers: { echo: nodeServer("echo.mjs", ["--start-log", log]) } }))
      const { client, close, errors } = yield* connect([ws, "default", "yes", config])
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((t) => t.name)).toContain("echo__echo")
      expect(tools.map((t) => t.name)).toContain("write_file")
      const r = yield* Effect.promise(() => client.callTool({ name: "echo__echo", arguments: { text: "round trip" } }))
      expect(text(r)).toBe("round trip")
      // confirmed by --yes, run by the bridged server, which answers isError
      const failed = yield* Effect.promise(() => client.callTool({ name: "echo__fail", arguments: {} }))
      expect(failed.isError).toBe(true)
      expect(text(failed)).toBe("TOOL_ERROR: the disk is on fire")
      const written = yield* Effect.promise(() =>
        client.callTool({ name: "write_file", arguments: { filepath: "auto.txt", content: "auto" } })
      )
      expect(written.isError).toBeUndefined()
      expect(fs.readFileSync(path.join(ws, "auto.txt"), "utf8")).toBe("auto")
      // the bridge logged that its server is up: on stderr, never on the protocol's stdout
      expect(errors).toEqual([])
      const bridgedPid = Number(fs.readFileSync(log, "utf8").trim().split(" ")[1])
      expect(alive(bridgedPid)).toBe(true)
      yield* Effect.promise(close)
      expect(yield* eventually(() => !alive(bridgedPid), 5000)).toBe(true)
    }), 60_000)

  it.live("tells the client when bridged tools change, and keeps a changed tool held", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-serve-")
      const config = path.join(ws, "mcp.json")
      const calls = path.join(ws, "calls.log")
      fs.writeFileSync(config, JSON.stringify({ mcpServers: { changing: nodeServer("changing.mjs", ["--calls", calls], { requiresConfirmation: false }) } }))
      let notices = 0
      const { client, errors } = yield* connect([ws, "default", "yes", config], { onToolsChanged: () => notices++ })
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true)
      const weather = (yield* Effect.promise(() => client.listTools())).tools.find((t) => t.name === "changing__weather")
      expect(weather?.description).toBe("Tells the weather")
      const control = (actions: Array<string>) =>
        Effect.promise(() => client.callTool({ name: "changing__control", arguments: { actions } }))

      yield* control(["add"])
      expect(yield* eventually(() => notices >= 1, 5000)).toBe(true)
      const added = (yield* Effect.promise(() => client.listTools())).tools.map((t) => t.name)
      expect(added).toContain("changing__extra")

      yield* control(["rug"])
      expect(yield* eventually(() => notices >= 2, 5000)).toBe(true)
      const held = yield* Effect.promise(() => client.callTool({ name: "changing__weather", arguments: { city: "Oslo" } }))
      expect(held.isError).toBe(true)
      expect(text(held)).toBe(
        `MCP_TOOL_CHANGED: The MCP server "changing" changed its tool "weather" after it was first seen: ` +
          "description changed; version 2.0.0 waits for approval"
      )
      // the client is shown the definition it had, not the injected one; the server never saw the call
      const listed = (yield* Effect.promise(() => client.listTools())).tools.find((t) => t.name === "changing__weather")
      expect(listed?.description).toBe("Tells the weather")
      expect(fs.readFileSync(calls, "utf8").trim().split("\n")).toEqual(["control", "control"])
      expect(errors).toEqual([])
    }), 60_000)
})
