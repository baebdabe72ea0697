/**
 * Issue 50, the files of capped results (`resultFiles.ts`): written `0600` in a folder made
 * `0700`; the folder bounded in files and bytes, the oldest of ours deleted off the call's path;
 * a file someone else put there, a file of ours in name only, and a symbolic link (to a file
 * outside) are left alone; many writers at once (two servers on one workspace) keep the bound.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { RESULT_FILE_NAME } from "../../../src/tools/mcp/resultFiles.js"
import { tempDir } from "../../helpers/tempDir.js"
import { partsOf, servedClient } from "./resultHarness.js"

type Client = { readonly callTool: (params: { name: string; arguments: Record<string, unknown> }) => Promise<object> }

const folderOf = (ws: string) => path.join(ws, ".mcp-results")

/** Our result files in the folder (by name), and their total size. */
const ours = (ws: string) => {
  const names = fs.readdirSync(folderOf(ws)).filter((name) => RESULT_FILE_NAME.test(name)).sort()
  const files = names.filter((name) => fs.lstatSync(path.join(folderOf(ws), name)).isFile() && (fs.statSync(path.join(folderOf(ws), name)).mode & 0o777) === 0o600)
  return { files, bytes: files.reduce((sum, name) => sum + fs.statSync(path.join(folderOf(ws), name)).size, 0) }
}

/** Waits (up to 3 s) until `check` holds: the pruning runs after the call has answered. */
const eventually = (check: () => boolean) =>
  Effect.promise(async () => {
    for (let waited = 0; waited < 3000 && !check(); waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
    return check()
  })

const bigCall = (client: Client, chars: number) =>
  Effect.promise(() => client.callTool({ name: "big", arguments: { text: "x", times: chars } }))

describe("the files of capped results", () => {
  it.live("a result file is 0600 and the folder the server made 0700 (the umask alone would leave them 0644 and 0755)", () =>
    Effect.scoped(Effect.gen(function*() {
      const ws = yield* tempDir("mcp-results-")
      const client = yield* servedClient(ws, "stdio", "legacy", { maxResultChars: 100 })
      const reply = yield* bigCall(client, 500)
      const name = partsOf(reply).links[0]?.name ?? ""
      expect(fs.statSync(path.join(folderOf(ws), name)).mode & 0o777).toBe(0o600)
      expect(fs.statSync(folderOf(ws)).mode & 0o777).toBe(0o700)
    })))

  it.live("many large results: at most maxFiles files and maxBytes bytes stay, the newest", () =>
    Effect.scoped(Effect.gen(function*() {
      const ws = yield* tempDir("mcp-results-")
      const byFiles = yield* servedClient(ws, "stdio", "legacy", { maxResultChars: 100, resultFiles: { maxFiles: 4 } })
      const names: Array<string> = []
      for (let i = 0; i < 12; i++) names.push(partsOf(yield* bigCall(byFiles, 1000 + i)).links[0]?.name ?? "")
      expect(yield* eventually(() => ours(ws).files.length === 4)).toBe(true)
      expect(ours(ws).files).toEqual(names.slice(-4))

      const ws2 = yield* tempDir("mcp-results-")
      const byBytes = yield* servedClient(ws2, "http", "auto", { maxResultChars: 100, resultFiles: { maxBytes: 10_000 } })
      for (let i = 0; i < 12; i++) yield* bigCall(byBytes, 3000)
      expect(yield* eventually(() => ours(ws2).bytes <= 10_000 && ours(ws2).files.length === 3)).toBe(true)
      // a result larger than the folder may hold alone is not kept, and says so
      const huge = partsOf(yield* bigCall(byBytes, 20_000))
      expect(huge.links).toEqual([])
      expect(huge.texts[0]).toContain("the whole result was not kept: it is larger than the 10000 bytes .mcp-results/ may hold")
    })))

  it.live("a foreign file, a file of ours in name only, and a symbolic link are left alone and not counted", () =>
    Effect.scoped(Effect.gen(function*() {
      const ws = yield* tempDir("mcp-results-")
      const outside = yield* tempDir("mcp-results-outside-")
      const folder = folderOf(ws)
      fs.mkdirSync(folder, { mode: 0o755 })
      const target = path.join(outside, "precious.txt")
      fs.writeFileSync(target, "keep me")
      fs.chmodSync(target, 0o600)
      // the oldest names of all: they would go first were they taken for ours
      const link = "2000-01-01T00-00-00-000Z-big-0123456789ab.txt"
      const lookalike = "2000-01-01T00-00-00-001Z-big-0123456789ab.txt"
      fs.symlinkSync(target, path.join(folder, link))
      fs.writeFileSync(path.join(folder, lookalike), "not ours", { mode: 0o644 })
      fs.chmodSync(path.join(folder, lookalike), 0o644)
      fs.writeFileSync(path.join(folder, "notes.txt"), "someone's notes")
      fs.mkdirSync(path.join(folder, "2000-01-01T00-00-00-002Z-big-0123456789ab.txt"))

      const client = yield* servedClient(ws, "stdio", "legacy", { maxResultChars: 100, resultFiles: { maxFiles: 2, maxBytes: 3000 } })
      for (let i = 0; i < 6; i++) yield* bigCall(client, 1000)
      expect(yield* eventually(() => ours(ws).files.length === 2)).toBe(true)
      const left = fs.readdirSync(folder)
      expect(left).toEqual(expect.arrayContaining([link, lookalike, "notes.txt", "2000-01-01T00-00-00-002Z-big-0123456789ab.txt"]))
      expect(left).toHaveLength(6)
      expect(fs.lstatSync(path.join(folder, link)).isSymbolicLink()).toBe(true)
      expect(fs.readFileSync(target, "utf8")).toBe("keep me")
      expect(fs.readFileSync(path.join(folder, lookalike), "utf8")).toBe("not ours")
      // an existing folder keeps its mode
      expect(fs.statSync(folder).mode & 0o777).toBe(0o755)
    })))

  it.live("writers at once, two servers on one workspace: every call is linked, the bound holds after", () =>
    Effect.scoped(Effect.gen(function*() {
      const ws = yield* tempDir("mcp-results-")
      const options = { maxResultChars: 100, resultFiles: { maxFiles: 5 } }
      const one = yield* servedClient(ws, "stdio", "legacy", options)
      const two = yield* servedClient(ws, "http", "auto", options)
      const replies = yield* Effect.all(
        Array.from({ length: 30 }, (_, i) => bigCall(i % 2 === 0 ? one : two, 500 + i)),
        { concurrency: "unbounded" }
      )
      expect(replies.every((reply) => partsOf(reply).links.length === 1)).toBe(true)
      expect(yield* eventually(() => ours(ws).files.length === 5)).toBe(true)
      expect(fs.readdirSync(folderOf(ws)).filter((name) => name.endsWith(".tmp"))).toEqual([])
    })))
})
