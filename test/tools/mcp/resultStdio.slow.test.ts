/**
 * Issue 50 over real stdio: our server in a child process (`serveMcpStdio`), an SDK v2 client
 * in each era. A tool with an object success schema is listed with its outputSchema and answers
 * structuredContent the client checks; a 5 MB result arrives cut at the default cap, linked to
 * the file that holds it whole.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { tempDir } from "../../helpers/tempDir.js"
import { measure, partsOf } from "./resultHarness.js"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../..")
const script = path.join(root, "test/tools/mcp/servers/serveResults.ts")

describe("served results over stdio (a child process)", () => {
  for (const era of ["legacy", "auto"] as const) {
    it.live(`${era === "legacy" ? "2025-11-25" : "2026-07-28"}: structuredContent, and a 5 MB result cut and kept`, () =>
      Effect.scoped(Effect.gen(function*() {
        const ws = yield* tempDir("mcp-results-stdio-")
        const client = new Client({ name: "results-stdio", version: "1.0.0" }, { versionNegotiation: { mode: era } })
        const transport = new StdioClientTransport({ command: process.execPath, args: ["--import", "tsx", script, ws], cwd: root, stderr: "pipe" })
        yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () => Effect.promise(() => client.close()))

        const { tools } = yield* Effect.promise(() => client.listTools())
        expect(tools.find((tool) => tool.name === "measure")?.outputSchema).toEqual(measure.outputSchema)
        const reply = yield* Effect.promise(() => client.callTool({ name: "measure", arguments: { n: 1 } }))
        expect(reply.structuredContent).toMatchObject({ n: 1, label: "n=1" })

        const huge = yield* Effect.promise(() => client.callTool({ name: "big", arguments: { text: "0123456789", times: 500_000 } }))
        const { links, texts } = partsOf(huge)
        expect(texts[0]?.length).toBeLessThan(100_300)
        expect(texts[0]).toContain("The result is 5000000 characters, cut here at 100000; the whole result is in .mcp-results/")
        const file = fileURLToPath(links[0]?.uri ?? "file:///nowhere")
        expect(path.dirname(file)).toBe(path.join(ws, ".mcp-results"))
        expect(fs.readFileSync(file, "utf8")).toBe("0123456789".repeat(500_000))
      })), 60_000)
  }
})
