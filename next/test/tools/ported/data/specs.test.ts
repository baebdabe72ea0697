/**
 * The data, text and system tools: names, flags, tags, and parameters that survive every
 * export format (the lead's catalog test covers all 46 once every category is in).
 */
import { describe, expect, it } from "@effect/vitest"
import { Exports } from "../../../../src/index.js"
import { dataTools } from "../../../../src/tools/ported/data/index.js"
import { systemTools } from "../../../../src/tools/ported/system/index.js"
import { textTools } from "../../../../src/tools/ported/text/index.js"

const GROUPS = [
  ["data", dataTools, ["read_json", "read_csv", "query_json", "hash_file", "base64", "convert_format"]],
  ["text", textTools, ["text_stats", "regex_extract", "diff_text", "format_json"]],
  ["system", systemTools, ["get_environment_info", "get_current_time", "calculator"]]
] as const

describe("the data, text and system tools", () => {
  it("are the catalog's, read-only, tagged with their category and \"ported\"", () => {
    for (const [category, tools, names] of GROUPS) {
      expect(tools.map((t) => t.name)).toEqual(names)
      for (const tool of tools) {
        expect(tool.spec.readOnly, tool.name).toBe(true)
        expect(tool.scopedWrite, tool.name).toBe(false)
        expect(tool.requiresConfirmation, tool.name).toBe(false)
        expect(tool.tags, tool.name).toEqual([category, "ported"])
      }
    }
  })

  it("take their files as workspace paths", () => {
    const paths = Object.fromEntries(GROUPS.flatMap(([, tools]) => tools.map((t) => [t.name, t.pathFields])))
    expect(paths).toEqual({
      read_json: ["filepath"],
      read_csv: ["filepath"],
      query_json: [],
      hash_file: ["filepath"],
      base64: [],
      convert_format: ["filepath"],
      text_stats: [],
      regex_extract: [],
      diff_text: [],
      format_json: [],
      get_environment_info: [],
      get_current_time: [],
      calculator: []
    })
  })

  it("survive every export format; every parameter has a description", () => {
    for (const [, tools] of GROUPS) {
      for (const tool of tools) {
        for (const format of Exports.formats) {
          expect(() => Exports.exportSpec(tool.spec, format), `${tool.name} as ${format}`).not.toThrow()
        }
        const properties = tool.spec.parameters.properties
        for (const [key, schema] of Object.entries(typeof properties === "object" && properties !== null ? properties : {})) {
          expect(JSON.stringify(schema), `${tool.name}.${key}`).toContain("\"description\"")
        }
      }
    }
  })
})
