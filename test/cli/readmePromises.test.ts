/**
 * What the README promises of the command line and no other test pins: `list --tag` keeps only
 * the tools with that tag; `call` refuses arguments that are JSON but not an object as a usage
 * error; and `export` prints the openai, anthropic and gemini formats, each exactly the
 * registry's own export (as the library gives it in process) of the same tools.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ToolRegistry, type ToolRegistryService, ToolSystem } from "../../src/index.js"
import { cliInProcess as cli } from "./helpers.js"

/** The registry of the default system (the builtins and the ported tools), in process. */
const inProcess = <A>(f: (registry: ToolRegistryService) => Effect.Effect<A>) =>
  Effect.runPromise(Effect.flatMap(ToolRegistry, f).pipe(Effect.provide(ToolSystem.layerNode())))

describe("the README's command line", { timeout: 120_000 }, () => {
  it("list --tag T --json lists exactly the tools tagged T", async () => {
    const expected = await inProcess((registry) => Effect.map(registry.list({ tags: ["pdf"] }), (tools) => tools.map((t) => t.name)))
    expect(expected).toEqual(["read_pdf"])
    const { code, stdout } = await cli("list", "--tag", "pdf", "--json")
    expect(code).toBe(0)
    const listed: Array<{ name: string; tags: Array<string> }> = JSON.parse(stdout)
    expect(listed.map((t) => t.name)).toEqual(expected)
    // a tag several tools share: all of them, and only them
    const files = await cli("list", "--tag", "files", "--json")
    const names: Array<{ name: string; tags: Array<string> }> = JSON.parse(files.stdout)
    expect(names.map((t) => t.name)).toEqual(
      await inProcess((registry) => Effect.map(registry.list({ tags: ["files"] }), (tools) => tools.map((t) => t.name)))
    )
    expect(names.length).toBeGreaterThan(3)
    expect(names.every((t) => t.tags.includes("files"))).toBe(true)
    expect(names.map((t) => t.name)).not.toContain("execute_javascript")
  })

  it("call: arguments that are JSON but not an object are a usage error (exit 2), with no result printed", async () => {
    for (const args of ["[1,2]", "\"notes.txt\"", "null", "3"]) {
      const r = await cli("call", "read_file", args)
      expect(r.code, args).toBe(2)
      expect(r.stderr).toContain("The arguments must be a JSON object")
      expect(r.stdout).toBe("")
    }
  })

  for (const format of ["openai", "anthropic", "gemini"] as const) {
    it(`export --format ${format} prints the registry's ${format} export`, async () => {
      const { code, stdout } = await cli("export", "--format", format, "--tag", "files")
      expect(code).toBe(0)
      const printed: Array<Record<string, unknown>> = JSON.parse(stdout)
      expect(printed).toEqual(await inProcess((registry) => registry.export(format, { tags: ["files"] })))
      const readFile = printed.find((t) => (format === "openai" ? (t.function as { name: string }).name : t.name) === "read_file")
      switch (format) {
        case "openai":
          expect(readFile).toMatchObject({ type: "function", function: { name: "read_file", parameters: { type: "object" } } })
          break
        case "anthropic":
          expect(Object.keys(readFile ?? {}).sort()).toEqual(["description", "input_schema", "name"])
          expect(readFile).toMatchObject({ input_schema: { type: "object" } })
          break
        case "gemini":
          expect(Object.keys(readFile ?? {}).sort()).toEqual(["description", "name", "parameters"])
          expect(readFile).toMatchObject({ parameters: { type: "OBJECT" } })
          break
      }
    })
  }
})
