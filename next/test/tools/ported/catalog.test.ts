/**
 * The 46 ported tools against the catalog (`shared/TOOLS.md`): names, flags, path
 * parameters, every export format, and what each agent mode lets through.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { AgentMode, Exports, ToolRegistry, ToolSystem, Workspace } from "../../../src/index.js"
import { portedTools } from "../../../src/tools/ported/index.js"
import { makeGenerateImage } from "../../../src/tools/ported/media/generateImage.js"
import { makeRegexExtract } from "../../../src/tools/ported/text/regexExtract.js"
import { makeDownloadFile } from "../../../src/tools/ported/web/downloadFile.js"
import { makeFetchUrl } from "../../../src/tools/ported/web/fetchUrl.js"
import { makeHttpRequest } from "../../../src/tools/ported/web/httpRequest.js"
import { expectDescribedForTheModel } from "../../helpers/describedTools.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

type Flags = "ro" | "sw" | "cf" | "sw cf" | "-"

/** The catalog: every ported tool and its flags. */
const CATALOG: Record<string, Flags> = {
  append_to_file: "sw",
  insert_lines: "sw",
  replace_in_file: "sw",
  move_file: "sw",
  copy_file: "sw",
  apply_diff: "sw",
  edit_file_line: "sw",
  remove_line_range: "sw",
  create_directory: "-",
  delete_file: "cf",
  snapshot_file: "-",
  restore_snapshot: "cf",
  read_lines: "ro",
  file_info: "ro",
  search_files: "ro",
  find_files: "ro",
  directory_tree: "ro",
  diff_files: "ro",
  count_lines: "ro",
  list_snapshots: "ro",
  read_json: "ro",
  read_csv: "ro",
  query_json: "ro",
  hash_file: "ro",
  base64: "ro",
  convert_format: "ro",
  text_stats: "ro",
  regex_extract: "ro",
  diff_text: "ro",
  format_json: "ro",
  git_status: "ro",
  git_diff: "ro",
  git_log: "ro",
  git_show: "ro",
  git_branches: "ro",
  git_add: "-",
  git_commit: "-",
  git_checkout: "cf",
  run_command: "cf",
  get_environment_info: "ro",
  get_current_time: "ro",
  calculator: "ro",
  fetch_url: "ro",
  http_request: "cf",
  download_file: "-",
  generate_image: "-"
}

/** The tools with two path parameters, both checked. */
const TWO_PATHS: Record<string, ReadonlyArray<string>> = {
  move_file: ["source", "destination"],
  copy_file: ["source", "destination"],
  diff_files: ["file_a", "file_b"]
}

const flagsOf = (tool: (typeof portedTools)[number]): Flags => {
  if (tool.spec.readOnly) return "ro"
  if (tool.scopedWrite) return tool.requiresConfirmation ? "sw cf" : "sw"
  return tool.requiresConfirmation ? "cf" : "-"
}

const ws = makeTempDirSync("catalog-")

describe("the ported tools", () => {
  it("are the 46 of the catalog, each with its flags", () => {
    expect(portedTools).toHaveLength(46)
    expect(Object.fromEntries(portedTools.map((t) => [t.name, flagsOf(t)]))).toEqual(CATALOG)
    for (const tool of portedTools) expect(tool.tags).toContain("ported")
  })

  it("every parameter of every tool is described for the model, in the tool's own words", () => {
    expectDescribedForTheModel(portedTools, 5)
  })

  it("a tool built by its factory (as tests build them, with a short deadline) is the shipped tool but for that option", () => {
    const contract = (tool: (typeof portedTools)[number]) => ({
      name: tool.name,
      // the description states the regex deadline and the download cap: the rest of it is the same
      description: tool.spec.description.replace(/after [\d.]+ s is stopped\.$/, "").replace(/At most [\d.]+ [KMG]iB\./, ""),
      parameters: tool.spec.parameters,
      flags: flagsOf(tool),
      tags: tool.tags,
      pathFields: tool.pathFields
    })
    const built = [
      makeRegexExtract({ deadline: "300 millis" }),
      makeFetchUrl({ timeout: "2 seconds", htmlDeadline: "1 second" }),
      makeHttpRequest({ timeout: "2 seconds" }),
      makeDownloadFile({ timeout: "2 seconds", maxBytes: 1024 }),
      makeGenerateImage({ timeout: "2 seconds" })
    ]
    for (const tool of built) {
      const shipped = portedTools.find((t) => t.name === tool.name)
      expect(shipped, tool.name).toBeDefined()
      if (shipped !== undefined) expect(contract(tool), tool.name).toEqual(contract(shipped))
      expect(tool.timeoutMs, tool.name).toBe(tool.name === "regex_extract" ? 30_000 : 2_000)
    }
    expect(built[0]?.spec.description).toMatch(/after 0\.3 s is stopped\.$/)
    expect(built[3]?.spec.description).toContain("At most 1 KiB.")
  })

  it("check both paths of the tools that take two", () => {
    for (const [name, fields] of Object.entries(TWO_PATHS)) {
      const tool = portedTools.find((t) => t.name === name)
      expect(tool?.pathFields, name).toEqual(fields)
    }
  })

  it("every editing tool takes its file as a WorkspacePath", () => {
    for (const tool of portedTools.filter((t) => t.scopedWrite)) expect(tool.pathFields.length, tool.name).toBeGreaterThan(0)
  })

  it("every tool's parameters survive each export (OpenAI strict by its rules)", () => {
    for (const tool of portedTools) {
      for (const format of Exports.formats) {
        expect(() => Exports.exportSpec(tool.spec, format), `${tool.name} as ${format}`).not.toThrow()
      }
    }
  })

  it.effect("ToolSystem.layer registers them by default (52 tools) and leaves them out with ported: false", () =>
    Effect.gen(function*() {
      const all = yield* Effect.flatMap(ToolRegistry, (r) => r.list()).pipe(
        Effect.provide(ToolSystem.layerNode({ workspace: Workspace.layerFixed(ws) }))
      )
      expect(all).toHaveLength(52)
      const builtinsOnly = yield* Effect.flatMap(ToolRegistry, (r) => r.list()).pipe(
        Effect.provide(ToolSystem.layerNode({ ported: false, workspace: Workspace.layerFixed(ws) }))
      )
      expect(builtinsOnly).toHaveLength(6)
    }))

  it.effect("explore mode refuses every tool that is not read-only; plan mode lets only scoped writes under plans/", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      for (const tool of portedTools.filter((t) => !t.spec.readOnly)) {
        const r = yield* tools.execute(tool.name, {}, { mode: AgentMode.Explore, confirm: true })
        // arguments are checked first: only a refusal by the mode gate or by the arguments is acceptable
        expect(["MODE_BLOCKED", "INVALID_ARGUMENTS"], tool.name).toContain(r.errorCode)
      }
      // with valid arguments, the mode gate is what refuses
      const blocked = [
        ["snapshot_file", { filepath: "plans/a.md" }],
        ["run_command", { command: "true" }],
        ["git_add", { paths: ["plans/a.md"] }],
        ["git_commit", { message: "x" }],
        ["create_directory", { dirpath: "plans/sub" }],
        ["move_file", { source: "src/a.md", destination: "plans/a.md" }],
        ["copy_file", { source: "plans/a.md", destination: "src/b.md" }],
        ["append_to_file", { filepath: "src/a.md", content: "x" }]
      ] as const
      for (const [name, args] of blocked) {
        const r = yield* tools.execute(name, args, { mode: AgentMode.Plan, confirm: true })
        expect(r.errorCode, name).toBe("MODE_BLOCKED")
      }
      const passing = yield* tools.execute("append_to_file", { filepath: "plans/a.md", content: "x" }, {
        mode: AgentMode.Plan,
        confirm: true
      })
      expect(passing.success).toBe(true)
    }).pipe(Effect.provide(ToolSystem.layerNode({ workspace: Workspace.layerFixed(ws) }))))
})
