/**
 * What a proxy makes of a server's answer and its tool listing (`tools/mcp/proxy.ts`), as
 * pure functions: each kind of content block as text (non-text blocks named with their type,
 * MIME type and size, not inlined), structured content and the old `toolResult` as JSON, the
 * output cap exactly at and past its length, and the description's fallbacks and cap.
 */
import { describe, expect, it } from "@effect/vitest"
import { capText, definitionOf, resultText as textOf } from "../../../src/tools/mcp/proxy.js"
import type { CallResult } from "../../../src/tools/mcp/callRequest.js"

/** An answer as a server may send it, past what the SDK's types promise (the proxy does not trust them). */
const resultText = (answer: Readonly<Record<string, unknown>>): string => textOf(answer as CallResult)

describe("resultText", () => {
  it("puts each content block on its own line: text as it is, the others by kind", () => {
    expect(resultText({
      content: [
        { type: "text", text: "first" },
        { type: "text", text: 42 },
        { type: "image", mimeType: "image/png", data: "AAAABBBB" },
        { type: "audio", mimeType: "audio/wav", data: "AAAA" },
        { type: "image", mimeType: "image/gif" },
        { type: "resource_link", uri: "file:///a.txt", name: "a" },
        { type: "resource", resource: { uri: "file:///b.txt", text: "inline text" } },
        { type: "resource", resource: { uri: "file:///c.bin", blob: "AAAAAAAA" } },
        { type: "resource", resource: { uri: "file:///d.bin" } },
        { type: "resource" },
        { type: "video" }
      ]
    })).toBe([
      "first",
      "",
      "[image image/png, 6 bytes]",
      "[audio audio/wav, 3 bytes]",
      "[image image/gif]",
      "[resource file:///a.txt]",
      "inline text",
      "[resource file:///c.bin, 6 bytes]",
      "[resource file:///d.bin]",
      "[resource]",
      "[video content]"
    ].join("\n"))
  })

  it("without content: the structured content as JSON, else the old toolResult, else nothing", () => {
    expect(resultText({ content: [], structuredContent: { n: 1 } })).toBe("{\"n\":1}")
    expect(resultText({ structuredContent: { n: 2 } })).toBe("{\"n\":2}")
    // content wins over structured content
    expect(resultText({ content: [{ type: "text", text: "t" }], structuredContent: { n: 3 } })).toBe("t")
    expect(resultText({ toolResult: [1, "two"] })).toBe("[1,\"two\"]")
    expect(resultText({ toolResult: undefined })).toBe("")
    expect(resultText({ content: "not a list" })).toBe("")
    expect(resultText({})).toBe("")
  })

  it("names structured content nested too deep for JSON.stringify instead of throwing", () => {
    const deep = JSON.parse(`${"{\"a\":".repeat(100_000)}1${"}".repeat(100_000)}`)
    expect(resultText({ content: [], structuredContent: deep })).toBe("[structured content nested too deep to show]")
    expect(resultText({ toolResult: deep })).toBe("[structured content nested too deep to show]")
  })
})

describe("capText", () => {
  it("keeps a text of exactly the cap; one character more is cut and says so", () => {
    expect(capText("abcde", 5)).toBe("abcde")
    expect(capText("abcdef", 5)).toBe("abcde\n… [output cut at 5 of 6 characters]")
  })
})

describe("definitionOf", () => {
  const schema = { type: "object" as const }
  it("describes a tool by its description, else its title, else by name and server; at most 4,096 characters", () => {
    expect(definitionOf("srv", { name: "t", description: "Does t", title: "T", inputSchema: schema }).description).toBe("Does t")
    expect(definitionOf("srv", { name: "t", title: "The T", inputSchema: schema }).description).toBe("The T")
    expect(definitionOf("srv", { name: "t", inputSchema: schema }).description).toBe("The tool \"t\" of the MCP server \"srv\"")
    expect(definitionOf("srv", { name: "t", description: "d".repeat(5000), inputSchema: schema }).description).toBe("d".repeat(4096))
    // escape sequences, control characters and bidi controls go; line breaks and tabs stay
    expect(definitionOf("srv", { name: "t", description: "a\u001b[2J\u0007\u202eb\n\tc", inputSchema: schema }).description)
      .toBe("ab\n\tc")
  })

  it("takes readOnlyHint only when it is true", () => {
    expect(definitionOf("s", { name: "t", inputSchema: schema, annotations: { readOnlyHint: true } }).readOnlyHint).toBe(true)
    expect(definitionOf("s", { name: "t", inputSchema: schema, annotations: { readOnlyHint: false } }).readOnlyHint).toBe(false)
    expect(definitionOf("s", { name: "t", inputSchema: schema, annotations: {} }).readOnlyHint).toBe(false)
    expect(definitionOf("s", { name: "t", inputSchema: schema }).readOnlyHint).toBe(false)
  })
})
