/**
 * Issue 50, the cap on a served result's text (`maxResultChars`): a longer text is sent cut,
 * never between the halves of a surrogate pair, its whole kept in a fresh file under
 * `.mcp-results/` in the workspace and linked (`resource_link`, `file://`), the text naming the
 * workspace-relative path. A symbolic link planted at `.mcp-results` is not followed; a write
 * that fails, and a read-only mode (which writes nothing), give the cut text with a note. Many
 * large results at once each get a file of their own.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Explore } from "../../../src/domain/AgentMode.js"
import { cutText, DEFAULT_MAX_RESULT_CHARS } from "../../../src/tools/mcp/resultContent.js"
import { tempDir } from "../../helpers/tempDir.js"
import { partsOf, servedClient } from "./resultHarness.js"

const results = (ws: string): Array<string> =>
  fs.existsSync(path.join(ws, ".mcp-results")) ? fs.readdirSync(path.join(ws, ".mcp-results")).sort() : []

const callOf = (client: { readonly callTool: (params: { name: string; arguments: Record<string, unknown> }) => Promise<object> }) =>
  (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))

describe("cutText", () => {
  it("keeps a text at the cap whole, cuts one past it, and never splits a surrogate pair", () => {
    expect(cutText("abcde", 5)).toBe("abcde")
    expect(cutText("abcdef", 5)).toBe("abcde")
    // "😀" is two code units: a cut between them drops the high half too
    const text = "abcd😀ef"
    expect(cutText(text, 5)).toBe("abcd")
    expect(cutText(text, 6)).toBe("abcd😀")
    expect(cutText(text, 4)).toBe("abcd")
  })
})

describe("the result cap", () => {
  it.live("a 5 MB result (default cap): cut at 100,000 characters, the whole text in .mcp-results/, linked", () =>
    Effect.scoped(Effect.gen(function*() {
      const ws = yield* tempDir("mcp-cap-")
      const call = callOf(yield* servedClient(ws, "stdio", "legacy"))
      const reply = yield* call("big", { text: "0123456789", times: 500_000 })
      expect("isError" in reply && reply.isError === true).toBe(false)
      const { links, texts } = partsOf(reply)
      expect(texts).toHaveLength(1)
      const text = texts[0] ?? ""
      const [name] = results(ws)
      expect(results(ws)).toHaveLength(1)
      expect(text.startsWith("0123456789".repeat(DEFAULT_MAX_RESULT_CHARS / 10))).toBe(true)
      expect(text.length).toBeLessThan(DEFAULT_MAX_RESULT_CHARS + 300)
      expect(text).toContain(`The result is 5000000 characters, cut here at 100000; the whole result is in .mcp-results/${name} (in the workspace).`)
      const file = path.join(ws, ".mcp-results", name ?? "")
      expect(fs.readFileSync(file, "utf8")).toBe("0123456789".repeat(500_000))
      expect(links).toEqual([{ uri: `file://${file}`, name }])
      expect(fileURLToPath(links[0]?.uri ?? "")).toBe(file)
    })))

  for (const wire of ["stdio", "http"] as const) {
    for (const era of ["legacy", "auto"] as const) {
      it.live(`${wire}, ${era === "legacy" ? "2025-11-25" : "2026-07-28"}: exactly at the cap is whole; one past it is cut and kept`, () =>
        Effect.scoped(Effect.gen(function*() {
          const ws = yield* tempDir("mcp-cap-")
          const call = callOf(yield* servedClient(ws, wire, era, { maxResultChars: 1000 }))
          const at = yield* call("big", { text: "a", times: 1000 })
          expect(partsOf(at)).toEqual({ texts: ["a".repeat(1000)], links: [] })
          expect(results(ws)).toEqual([])
          const past = yield* call("big", { text: "a", times: 1001 })
          const { links, texts } = partsOf(past)
          expect(texts[0]?.startsWith(`${"a".repeat(1000)}\n\n[The result is 1001 characters, cut here at 1000;`)).toBe(true)
          expect(links).toHaveLength(1)
          expect(results(ws)).toHaveLength(1)
        })))
    }
  }

  it.live("multi-byte characters across the cap: the pair is not split, the file holds every byte", () =>
    Effect.scoped(Effect.gen(function*() {
      const ws = yield* tempDir("mcp-cap-")
      const call = callOf(yield* servedClient(ws, "stdio", "auto", { maxResultChars: 1001 }))
      // "é😀": three code units; 1001 falls between the halves of a pair
      const reply = yield* call("big", { text: "é😀", times: 500 })
      const text = partsOf(reply).texts[0] ?? ""
      const cut = text.slice(0, text.indexOf("\n\n["))
      expect(cut).toBe("é😀".repeat(333) + "é")
      expect(cut.length).toBe(1000)
      expect(text).toContain("The result is 1500 characters, cut here at 1000;")
      const [name] = results(ws)
      expect(fs.readFileSync(path.join(ws, ".mcp-results", name ?? ""), "utf8")).toBe("é😀".repeat(500))
    })))

  it.live("a large answer of a tool with an outputSchema: an error answer, cut, no structuredContent, the whole kept", () =>
    Effect.scoped(Effect.gen(function*() {
      const ws = yield* tempDir("mcp-cap-")
      const call = callOf(yield* servedClient(ws, "stdio", "legacy", { maxResultChars: 1000 }))
      // the client checks structured content only on a success: it takes this answer
      const reply = yield* call("big_structured", { times: 5000 })
      expect(reply).toMatchObject({ isError: true })
      expect("structuredContent" in reply ? reply.structuredContent : undefined).toBeUndefined()
      const { links, texts } = partsOf(reply)
      expect(texts[0]).toContain("cut here at 1000; the whole result is in .mcp-results/")
      expect(links).toHaveLength(1)
      const [name] = results(ws)
      expect(JSON.parse(fs.readFileSync(path.join(ws, ".mcp-results", name ?? ""), "utf8"))).toEqual({ text: "y".repeat(5000) })
      // a small one still succeeds with structured content
      const small = yield* call("big_structured", { times: 3 })
      expect(small).toMatchObject({ structuredContent: { text: "yyy" } })
    })))

  it.live("a symbolic link planted at .mcp-results (to outside, or to inside) is not followed: cut, with a note", () =>
    Effect.scoped(Effect.gen(function*() {
      const ws = yield* tempDir("mcp-cap-")
      const outside = yield* tempDir("mcp-cap-outside-")
      fs.mkdirSync(path.join(ws, "src"))
      const call = callOf(yield* servedClient(ws, "stdio", "legacy", { maxResultChars: 100 }))
      for (const target of [outside, path.join(ws, "src")]) {
        fs.rmSync(path.join(ws, ".mcp-results"), { force: true })
        fs.symlinkSync(target, path.join(ws, ".mcp-results"))
        const reply = yield* call("big", { text: "z", times: 5000 })
        const { links, texts } = partsOf(reply)
        expect(links).toEqual([])
        expect(texts[0]?.startsWith(`${"z".repeat(100)}\n\n[The result is 5000 characters, cut here at 100; the whole result was not kept: writing it to .mcp-results/ failed:`)).toBe(true)
        expect(texts[0]?.length).toBeLessThan(600)
        expect(fs.readdirSync(target)).toEqual([])
      }
    })))

  it.live("a workspace where the file cannot be written (a file in the folder's place): cut, with a note", () =>
    Effect.scoped(Effect.gen(function*() {
      const ws = yield* tempDir("mcp-cap-")
      fs.writeFileSync(path.join(ws, ".mcp-results"), "not a folder")
      const call = callOf(yield* servedClient(ws, "stdio", "auto", { maxResultChars: 100 }))
      const reply = yield* call("big", { text: "z", times: 5000 })
      const { links, texts } = partsOf(reply)
      expect(links).toEqual([])
      expect(texts[0]).toMatch(/^z{100}\n\n\[The result is 5000 characters, cut here at 100; the whole result was not kept: writing it to \.mcp-results\/ failed: .+\. Ask for less \(a narrower call\)\.\]$/)
      expect(fs.readFileSync(path.join(ws, ".mcp-results"), "utf8")).toBe("not a folder")
    })))

  it.live("a read-only mode writes nothing: cut, with a note saying why", () =>
    Effect.scoped(Effect.gen(function*() {
      const ws = yield* tempDir("mcp-cap-")
      const call = callOf(yield* servedClient(ws, "http", "auto", { maxResultChars: 100, mode: Explore }))
      const reply = yield* call("big_read_only", { text: "r", times: 5000 })
      const { links, texts } = partsOf(reply)
      expect(links).toEqual([])
      expect(texts[0]).toBe(
        `${"r".repeat(100)}\n\n[The result is 5000 characters, cut here at 100; the whole result was not kept: the mode "explore" is read-only, and the server writes nothing in the workspace then. Ask for less (a narrower call).]`
      )
      expect(fs.readdirSync(ws)).toEqual([])
    })))

  it.live("many large results at once: a file each, each holding its own text whole", () =>
    Effect.scoped(Effect.gen(function*() {
      const ws = yield* tempDir("mcp-cap-")
      const call = callOf(yield* servedClient(ws, "stdio", "legacy", { maxResultChars: 1000 }))
      const letters = "abcdefghijkl".split("")
      const replies = yield* Effect.forEach(letters, (letter) => call("big", { text: letter, times: 200_000 }), { concurrency: "unbounded" })
      const files = results(ws)
      expect(files).toHaveLength(letters.length)
      letters.forEach((letter, i) => {
        const { links, texts } = partsOf(replies[i] ?? {})
        const name = links[0]?.name ?? ""
        expect(texts[0]).toContain(`.mcp-results/${name} `)
        expect(fs.readFileSync(path.join(ws, ".mcp-results", name), "utf8")).toBe(letter.repeat(200_000))
      })
      expect(new Set(replies.map((reply) => partsOf(reply).links[0]?.name)).size).toBe(letters.length)
    })))
})
