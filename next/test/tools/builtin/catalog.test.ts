/**
 * The six builtins against the catalog (`shared/TOOLS.md`): names, flags, timeouts, tags, a
 * description a model can act on for the tool and each parameter, and what the read-only modes
 * let through.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { AgentMode, ToolSystem, Workspace } from "../../../src/index.js"
import { builtinTools } from "../../../src/tools/builtin/index.js"
import { makeReadPdf, readPdf } from "../../../src/tools/builtin/readPdf.js"
import { makeWebSearch, webSearch } from "../../../src/tools/builtin/webSearch.js"
import { expectDescribedForTheModel } from "../../helpers/describedTools.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

type Flags = "ro" | "sw cf" | "cf"

/** The catalog: each builtin's flags, run timeout in ms (30 s, or what the catalog gives) and tags. */
const CATALOG: Record<string, { readonly flags: Flags; readonly timeoutMs: number; readonly tags: ReadonlyArray<string> }> = {
  read_file: { flags: "ro", timeoutMs: 30_000, tags: ["files", "builtin"] },
  read_pdf: { flags: "ro", timeoutMs: 30_000, tags: ["files", "pdf", "builtin"] },
  write_file: { flags: "sw cf", timeoutMs: 30_000, tags: ["files", "builtin"] },
  list_files: { flags: "ro", timeoutMs: 30_000, tags: ["files", "builtin"] },
  web_search: { flags: "ro", timeoutMs: 20_000, tags: ["web", "builtin"] },
  execute_javascript: { flags: "cf", timeoutMs: 30_000, tags: ["sandbox", "builtin"] }
}

const flagsOf = (tool: (typeof builtinTools)[number]): string =>
  [tool.spec.readOnly ? "ro" : "", tool.scopedWrite ? "sw" : "", tool.requiresConfirmation ? "cf" : ""]
    .filter((flag) => flag !== "")
    .join(" ")

describe("the builtins", () => {
  it("are the six of the catalog, each with its flags, timeout and tags", () => {
    expect(
      Object.fromEntries(builtinTools.map((tool) => [tool.name, {
        flags: flagsOf(tool),
        timeoutMs: tool.timeoutMs,
        tags: tool.tags
      }]))
    ).toEqual(CATALOG)
  })

  it("describe themselves and every parameter, in their own words", () => {
    expectDescribedForTheModel(builtinTools, 10)
  })

  it("the builders with their defaults make the catalog's tools", () => {
    // built now, not when the module was loaded (what a mutation test run sees)
    for (const [made, builtin] of [[makeReadPdf(), readPdf], [makeWebSearch(), webSearch]] as const) {
      expect(made.spec, builtin.name).toEqual(builtin.spec)
      expect({ flags: flagsOf(made), timeoutMs: made.timeoutMs, tags: made.tags }).toEqual(CATALOG[builtin.name])
    }
    expect(makeReadPdf({ timeout: "2 seconds" }).timeoutMs).toBe(2000)
    expect(makeWebSearch({ timeout: "3 seconds" }).timeoutMs).toBe(3000)
  })

  it.effect("explore and plan modes let the read-only ones run, and refuse the others", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      for (const mode of [AgentMode.Explore, AgentMode.Plan]) {
        const ran = [
          yield* tools.execute("read_file", { filepath: "missing.txt" }, { mode }),
          yield* tools.execute("read_pdf", { filepath: "missing.pdf" }, { mode }),
          yield* tools.execute("list_files", {}, { mode }),
          yield* tools.execute("web_search", { query: "effect" }, { mode })
        ]
        // the tool ran: a missing file is the tool's own error, web_search without a key is unavailable
        expect(ran.map((r) => r.success ? "ok" : r.errorCode), mode.name).toEqual(["TOOL_ERROR", "TOOL_ERROR", "ok", "ok"])
        expect(String(ran[1]?.error)).toContain("does not exist")
        const refused = yield* tools.execute("execute_javascript", { code: "1" }, { mode, confirm: true })
        expect(refused.errorCode, mode.name).toBe("MODE_BLOCKED")
      }
      const writeOutside = yield* tools.execute("write_file", { filepath: "src/a.txt", content: "x" }, {
        mode: AgentMode.Plan,
        confirm: true
      })
      expect(writeOutside.errorCode).toBe("MODE_BLOCKED")
    }).pipe(
      Effect.provide(ToolSystem.layerNode({ ported: false, workspace: Workspace.layerFixed(makeTempDirSync("builtins-")) }))
    ))
})
