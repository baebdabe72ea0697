/**
 * Our server (`runMcpCommand`, as `effect-tool-system mcp` runs it, from the sources under
 * tsx) driven by a client nobody here wrote: the MCP Inspector's CLI
 * (`@modelcontextprotocol/inspector` 0.15, a devDependency), as
 * `npx mcp-inspector --cli <command> --method tools/list | tools/call --tool-name ... --tool-arg k=v`
 * (the same bin, run without npx).
 * Each run starts its own server and ends it.
 *
 * Effect 4 tree: the answer decoded with `Schema.fromJsonString`, the run on `Effect.callback`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { tempDir } from "../../helpers/tempDir.js"
import { nodeServer } from "./helpers.js"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../..")
const script = path.join(root, "test/tools/mcp/servers/serveToolSystem.ts")
const inspectorBin = path.join(root, "node_modules/.bin/mcp-inspector")

/** What the inspector prints: the JSON of the answer. */
const Answer = Schema.fromJsonString(Schema.Struct({
  tools: Schema.optional(Schema.Array(Schema.Struct({
    name: Schema.String,
    title: Schema.optional(Schema.String),
    annotations: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
  }))),
  content: Schema.optional(Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))),
  isError: Schema.optional(Schema.Boolean)
}))

/** Runs the inspector's CLI against our server (`serverArgs`: WORKSPACE [MODE] [yes|ask] [MCP_CONFIG]). */
const inspect = (serverArgs: ReadonlyArray<string>, method: ReadonlyArray<string>) =>
  Effect.callback<typeof Answer.Type, Error>((resume) => {
    const child = execFile(
      // what `npx mcp-inspector` runs, without npm's own start
      inspectorBin,
      ["--cli", process.execPath, "--import", "tsx", script, ...serverArgs, ...method],
      { cwd: root, timeout: 90_000 },
      (error, stdout, stderr) => {
        if (error !== null) return resume(Effect.fail(new Error(`${error.message}\n${stderr}`)))
        resume(Schema.decodeUnknownEffect(Answer)(stdout).pipe(Effect.mapError((e) => new Error(`${e.message}\n${stdout}`))))
      }
    )
    return Effect.sync(() => child.kill())
  })

const call = (tool: string, args: Record<string, string>) => [
  "--method",
  "tools/call",
  "--tool-name",
  tool,
  ...Object.entries(args).flatMap(([k, v]) => ["--tool-arg", `${k}=${v}`])
]

const textOf = (answer: typeof Answer.Type) => (answer.content ?? []).map((c) => c.text ?? "").join("\n")

describe("the MCP Inspector's CLI against effect-tool-system mcp", () => {
  it.live("lists the tools with MCP annotations; explore mode lists only read-only ones", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-inspector-")
      const [all, explore] = yield* Effect.all([
        inspect([ws], ["--method", "tools/list"]),
        inspect([ws, "explore"], ["--method", "tools/list"])
      ], { concurrency: 2 })
      const readFile = all.tools?.find((t) => t.name === "read_file")
      expect(readFile).toMatchObject({
        title: "Read file",
        annotations: { title: "Read file", readOnlyHint: true, destructiveHint: false }
      })
      expect(all.tools?.find((t) => t.name === "write_file")?.annotations?.destructiveHint).toBe(true)
      const names = (explore.tools ?? []).map((t) => t.name)
      expect(names).toContain("read_file")
      expect(names).not.toContain("write_file")
      expect(explore.tools?.every((t) => t.annotations?.readOnlyHint === true)).toBe(true)
    }), 180_000)

  it.live("calls tools through every gate: a result, a confirmation it cannot give, a traversal", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-inspector-")
      fs.writeFileSync(path.join(ws, "hello.txt"), "hello from the workspace\n")
      const [read, write, escape] = yield* Effect.all([
        inspect([ws], call("read_file", { filepath: "hello.txt" })),
        inspect([ws], call("write_file", { filepath: "new.txt", content: "x" })),
        inspect([ws], call("read_file", { filepath: "../../etc/passwd" }))
      ], { concurrency: 2 })
      expect(read.isError).toBeUndefined()
      expect(textOf(read)).toContain("hello from the workspace")
      // the inspector's CLI cannot answer an elicitation, and --yes was not given
      expect(write.isError).toBe(true)
      expect(textOf(write)).toBe("CONFIRMATION_REQUIRED: Confirmation required")
      expect(fs.existsSync(path.join(ws, "new.txt"))).toBe(false)
      expect(escape.isError).toBe(true)
      expect(textOf(escape)).toMatch(/^PATH_TRAVERSAL: the path "\.\.\/\.\.\/etc\/passwd" is outside the workspace/)
      expect(textOf(escape)).not.toContain("root:")
    }), 180_000)

  it.live("with --yes and --mcp-config: calls bridged tools, their arguments typed by the schema we serve", () =>
    Effect.gen(function*() {
      const ws = yield* tempDir("mcp-inspector-")
      const config = path.join(ws, "mcp.json")
      fs.writeFileSync(config, JSON.stringify({ mcpServers: { echo: nodeServer("echo.mjs") } }))
      const served = [ws, "default", "yes", config]
      // the inspector's CLI converts each --tool-arg by the tool's inputSchema: "2" becomes 2,
      // "two" becomes NaN, which JSON sends as null
      const [echo, add, bad] = yield* Effect.all([
        inspect(served, call("echo__echo", { text: "through two bridges" })),
        inspect(served, call("echo__add", { a: "2", b: "3" })),
        inspect(served, call("echo__add", { a: "two", b: "3" }))
      ], { concurrency: 2 })
      expect(echo).toMatchObject({ content: [{ type: "text", text: "through two bridges" }] })
      expect(add.isError).toBeUndefined()
      expect(textOf(add)).toBe("5")
      expect(bad.isError).toBe(true)
      expect(textOf(bad)).toBe(`INVALID_ARGUMENTS: Invalid arguments for "echo__add": a: must be number`)
    }), 180_000)
})
