/**
 * `docs/tools.md` in process (the CLI's `docs --check` runs it as a child, where no mutant of
 * the tools is seen): its table is the one the registry renders now, so a tool whose name,
 * version, flags, tags, description or parameters changed without the docs fails here; and
 * the renderer's own rules (sorting, escaping, defaults, optional marks, the markers).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { renderToolTable, replaceBetweenMarkers } from "../../src/cli/docs.js"
import { Tool, ToolRegistry, ToolSpec, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const docsFile = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../docs/tools.md")

describe("docs/tools.md", () => {
  it.effect("holds the table of every tool as the registry describes it now", () =>
    Effect.gen(function*() {
      const tools = yield* Effect.flatMap(ToolRegistry, (registry) => registry.list({ includeDeprecated: true }))
      expect(tools).toHaveLength(52)
      const content = Fs.readFileSync(docsFile, "utf8")
      expect(replaceBetweenMarkers(content, renderToolTable(tools)), "docs/tools.md is stale: run `npm run docs`").toBe(content)
    }).pipe(Effect.provide(ToolSystem.layerNode({ workspace: Workspace.layerFixed(makeTempDirSync("docs-")) }))))

  it("renders rows sorted by name, with pipes escaped, lines joined, defaults and optional marks", () => {
    const b = Tool.make("b_tool", {
      description: "Does b | or c\n  on two lines",
      parameters: Schema.Struct({
        needed: Schema.String.annotate({ description: "needed" }),
        maybe: Schema.optional(Schema.Number.annotate({ description: "maybe" })),
        counted: Schema.Number.annotate({ description: "counted" }).pipe(Schema.withDecodingDefaultType(Effect.succeed(3)))
      }),
      tags: ["x|y", "z"],
      readOnly: true,
      handler: () => Effect.succeed("ok")
    })
    const a = Tool.make("a_tool", {
      description: "Does a",
      parameters: Schema.Struct({}),
      requiresConfirmation: true,
      handler: () => Effect.succeed("ok")
    })
    expect(renderToolTable([b, a]).split("\n")).toEqual([
      "| tool | version | read-only | confirmation | tags | description | parameters |",
      "| --- | --- | --- | --- | --- | --- | --- |",
      "| `a_tool` | 1.0.0 | no | yes |  | Does a | — |",
      "| `b_tool` | 1.0.0 | yes | no | x\\|y, z | Does b \\| or c on two lines | `needed`, `maybe?`, `counted=3` |"
    ])
  })

  it("a schema without properties lists none; a property's schema that is not an object has no default", () => {
    const bare = Tool.make("bare_tool", { description: "Bare", parameters: Schema.Struct({}), handler: () => Effect.succeed("ok") })
    const row = (parameters: ToolSpec["parameters"]) =>
      renderToolTable([{ ...bare, spec: new ToolSpec({ ...bare.spec, parameters, required: ["flag"] }) }]).split("\n")[2]
    expect(row({ type: "object" })).toBe("| `bare_tool` | 1.0.0 | no | no |  | Bare | — |")
    expect(row({ type: "object", properties: null })).toBe("| `bare_tool` | 1.0.0 | no | no |  | Bare | — |")
    // JSON Schema allows `true` (anything) as a property's schema
    expect(row({ type: "object", properties: { flag: true, other: true } })).toBe(
      "| `bare_tool` | 1.0.0 | no | no |  | Bare | `flag`, `other?` |"
    )
    // nor has `null` (an object to typeof), which a schema from elsewhere may hold
    expect(row({ type: "object", properties: { flag: null, other: null } })).toBe(
      "| `bare_tool` | 1.0.0 | no | no |  | Bare | `flag`, `other?` |"
    )
  })

  it("replaces only what stands between the markers, and needs both in order", () => {
    const file = "intro\n<!-- AUTO:tools -->\nold\n<!-- /AUTO:tools -->\nend\n"
    expect(replaceBetweenMarkers(file, "new")).toBe("intro\n<!-- AUTO:tools -->\nnew\n<!-- /AUTO:tools -->\nend\n")
    expect(replaceBetweenMarkers("intro\n<!-- AUTO:tools -->\n", "new")).toBeUndefined()
    expect(replaceBetweenMarkers("<!-- /AUTO:tools -->\n<!-- AUTO:tools -->", "new")).toBeUndefined()
    expect(replaceBetweenMarkers("no markers", "new")).toBeUndefined()
    // markers at the very start of the file
    expect(replaceBetweenMarkers("<!-- AUTO:tools -->\nold\n<!-- /AUTO:tools -->", "new")).toBe(
      "<!-- AUTO:tools -->\nnew\n<!-- /AUTO:tools -->"
    )
  })
})
