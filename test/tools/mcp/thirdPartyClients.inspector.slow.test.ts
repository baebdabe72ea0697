/**
 * Our Streamable HTTP server driven by the MCP Inspector's CLI
 * (`@modelcontextprotocol/inspector` 0.15, the bin `mcp-inspector --cli URL --method ...`, run
 * without npx): it takes a URL ending in `/mcp` as Streamable HTTP (`--transport http` said
 * anyway). Once against the command line, `effect-tool-system mcp --http 127.0.0.1:0` in a child
 * process (its URL read from its `Serving MCP on URL` log line on stderr), once against
 * `serveMcpHttp` in this process (served with `confirmation: "auto"` too). Each inspector run
 * is a process of its own: connect, one request, disconnect.
 *
 * - Era: its client is the MCP SDK 1.32 (`@modelcontextprotocol/sdk`, bundled with it), which
 *   speaks 2025-11-25 only (`initialize`); it knows nothing of 2026-07-28.
 * - Confirmation: it cannot answer an elicitation (no capability, no handler), and 2025 over our
 *   stateless HTTP cannot ask anyway: a write that needs confirmation is refused with the note
 *   saying why and what to do (2026-07-28, stdio, or `--yes`); nothing is written.
 * - Errors: a tool error is printed as the error result (`isError: true`, `CODE: message`), the
 *   inspector exits 0.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { asExported, cliHttp, exported, HELLO, servedBuiltins } from "./thirdPartyClientsHarness.js"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../..")
const inspectorBin = path.join(root, "node_modules/.bin/mcp-inspector")

/** What the inspector prints: the JSON of the answer. */
const Answer = Schema.fromJsonString(Schema.Struct({
  tools: Schema.optional(Schema.Array(Schema.Struct({
    name: Schema.String,
    title: Schema.optional(Schema.String),
    description: Schema.optional(Schema.String),
    inputSchema: Schema.Record(Schema.String, Schema.Unknown),
    annotations: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
  }))),
  content: Schema.optional(Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))),
  isError: Schema.optional(Schema.Boolean)
}))

/** Runs the inspector's CLI against `url` over Streamable HTTP. */
const inspect = (url: string, method: ReadonlyArray<string>) =>
  Effect.callback<typeof Answer.Type, Error>((resume) => {
    const child = execFile(
      inspectorBin,
      ["--cli", url, "--transport", "http", ...method],
      { cwd: root, timeout: 90_000 },
      (error, stdout, stderr) => {
        if (error !== null) return resume(Effect.fail(new Error(`${error.message}\n${stderr}`)))
        resume(Schema.decodeUnknownEffect(Answer)(stdout).pipe(Effect.mapError((e) => new Error(`${e.message}\n${stdout}`))))
      }
    )
    return Effect.sync(() => child.kill())
  })

const list = ["--method", "tools/list"]

const call = (tool: string, args: Record<string, string>) => [
  "--method",
  "tools/call",
  "--tool-name",
  tool,
  ...Object.entries(args).flatMap(([k, v]) => ["--tool-arg", `${k}=${v}`])
]

const textOf = (answer: typeof Answer.Type) => (answer.content ?? []).map((c) => c.text ?? "").join("\n")

describe("the MCP Inspector's CLI over Streamable HTTP", () => {
  it.live("against mcp --http 127.0.0.1:0: lists our tools as we export them, reads, refuses the write with the note, errors", () =>
    Effect.scoped(Effect.gen(function*() {
      // our own listing of the builtins (the command line serves the same registry)
      const { listing, ws } = yield* servedBuiltins()
      const { url } = yield* cliHttp(ws)
      const [listed, read, write, missing] = yield* Effect.all([
        inspect(url, list),
        inspect(url, call("read_file", { filepath: "hello.txt" })),
        inspect(url, call("write_file", { filepath: "new.txt", content: "x" })),
        inspect(url, call("read_file", { filepath: "nowhere.txt" }))
      ], { concurrency: 2 })
      const tools = listed.tools ?? []
      expect(tools.map((t) => t.name)).toEqual(listing.map((t) => t.name))
      expect(asExported(tools, listing)).toEqual(exported(listing))
      expect(tools.find((t) => t.name === "read_file")).toMatchObject({
        title: "Read file",
        annotations: { title: "Read file", readOnlyHint: true, destructiveHint: false, idempotentHint: true }
      })
      expect(read.isError).toBeUndefined()
      expect(textOf(read)).toContain(HELLO.trim())
      expect(write.isError).toBe(true)
      expect(textOf(write)).toMatch(/^CONFIRMATION_REQUIRED: Confirmation required \(MCP 2025-11-25 over HTTP is stateless here/)
      expect(textOf(write)).toMatch(/2026-07-28.*--yes/s)
      expect(fs.existsSync(path.join(ws, "new.txt"))).toBe(false)
      expect(missing.isError).toBe(true)
      expect(textOf(missing)).toMatch(/^[A-Z_]+: /)
    })), 240_000)

  it.live("against serveMcpHttp in this process: a traversal is an error result; served with confirmation auto, the write runs", () =>
    Effect.scoped(Effect.gen(function*() {
      const asking = yield* servedBuiltins()
      const auto = yield* servedBuiltins("auto")
      const [escape, written, refused] = yield* Effect.all([
        inspect(asking.url, call("read_file", { filepath: "../../etc/passwd" })),
        inspect(auto.url, call("write_file", { filepath: "new.txt", content: "confirmed" })),
        inspect(asking.url, call("write_file", { filepath: "new.txt", content: "asked" }))
      ], { concurrency: 2 })
      expect(escape.isError).toBe(true)
      expect(textOf(escape)).toMatch(/^PATH_TRAVERSAL: the path "\.\.\/\.\.\/etc\/passwd" is outside the workspace/)
      expect(textOf(escape)).not.toContain("root:")
      expect(written.isError).toBeUndefined()
      expect(fs.readFileSync(path.join(auto.ws, "new.txt"), "utf8")).toBe("confirmed")
      expect(refused.isError).toBe(true)
      expect(fs.existsSync(path.join(asking.ws, "new.txt"))).toBe(false)
    })), 240_000)
})
