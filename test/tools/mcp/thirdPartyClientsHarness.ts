/**
 * Our HTTP server for the third-party client tests (`thirdPartyClients.*.slow.test.ts`): the
 * builtins in a fresh workspace (`hello.txt` in it), served by `serveMcpHttp` in this process
 * on 127.0.0.1 (a free port), with the listing we export (`mcpToolOf` of the registry, the
 * shapes each client's listing is compared with); or by the command line, `mcp --http
 * 127.0.0.1:0` in a child process, its URL read from its log line.
 */
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { ToolRegistry, ToolSystem, Workspace } from "../../../src/index.js"
import { serveMcpHttp } from "../../../src/tools/mcp/http.js"
import { mcpToolOf } from "../../../src/tools/mcp/listing.js"
import type { McpConfirmation } from "../../../src/tools/mcp/server.js"
import { tempDir } from "../../helpers/tempDir.js"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../..")

/** What `hello.txt` holds. */
export const HELLO = "hello from the workspace\n"

/** A tool as we list it, the fields every client is checked on. */
export interface ListedTool {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly inputSchema: object
  readonly annotations?: object | undefined
}

/** A workspace with `hello.txt`, removed with the scope. */
export const workspace = Effect.tap(tempDir("mcp-3p-"), (ws) => Effect.sync(() => fs.writeFileSync(path.join(ws, "hello.txt"), HELLO)))

/**
 * The builtins served over HTTP in this process for the scope: the URL, the workspace and our
 * own listing (the registry's tools as `tools/list` exports them).
 */
export const servedBuiltins = (confirmation?: McpConfirmation) =>
  Effect.gen(function*() {
    const ws = yield* workspace
    const services = yield* Layer.build(ToolSystem.layerNode({ workspace: Workspace.layerFixed(ws) }))
    return yield* Effect.gen(function*() {
      const { url } = yield* serveMcpHttp({ confirmation })
      const registry = yield* ToolRegistry
      const listing: ReadonlyArray<ListedTool> = (yield* registry.list()).map(mcpToolOf)
      return { url, ws, listing }
    }).pipe(Effect.provide(services))
  })

/**
 * `effect-tool-system mcp --http 127.0.0.1:0 --workspace WS` (the sources under tsx) for the
 * scope: the URL it logs (`Serving MCP on URL`, on stderr). Killed when the scope closes.
 */
export const cliHttp = (ws: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly kill: () => void }, Error>((resume) => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", path.join(root, "src/cli/main.ts"), "mcp", "--http", "127.0.0.1:0", "--workspace", ws],
        { cwd: root, stdio: ["ignore", "ignore", "pipe"] }
      )
      let stderr = ""
      const timer = setTimeout(() => resume(Effect.fail(new Error(`mcp --http did not start in 90 s:\n${stderr}`))), 90_000)
      const onExit = (code: number | null, signal: string | null) => {
        clearTimeout(timer)
        resume(Effect.fail(new Error(`mcp --http ended (${code ?? signal}) before serving:\n${stderr}`)))
      }
      child.once("exit", onExit)
      child.stderr.setEncoding("utf8")
      child.stderr.on("data", (chunk: string) => {
        stderr += chunk
        const url = /Serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1]
        if (url === undefined) return
        clearTimeout(timer)
        child.off("exit", onExit)
        resume(Effect.succeed({ url, kill: () => void child.kill() }))
      })
      return Effect.sync(() => {
        clearTimeout(timer)
        child.kill()
      })
    }),
    ({ kill }) => Effect.sync(kill)
  )

/** `listed` as the fields we export, in our order: what a client must show as we sent it. */
export const asExported = (listed: ReadonlyArray<ListedTool>, ours: ReadonlyArray<ListedTool>) =>
  ours.map(({ name }) => {
    const tool = listed.find((t) => t.name === name)
    return tool === undefined
      ? { name, missing: true }
      : { name, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations }
  })

/** Our own listing in the same fields. */
export const exported = (ours: ReadonlyArray<ListedTool>) =>
  ours.map(({ annotations, description, inputSchema, name }) => ({ name, description, inputSchema, annotations }))
