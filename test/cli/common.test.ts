/**
 * The tool system a command runs against (`graphOf`): a command about one builtin leaves the
 * ported tools unloaded; any other command, or one about a tool that is not a builtin, has them.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { graphOf } from "../../src/cli/common.js"
import { ToolRegistry } from "../../src/services/ToolRegistry.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"

const namesOf = (options: Parameters<typeof graphOf>[0]) =>
  Effect.scoped(
    Effect.flatMap(ToolRegistry, (registry) => registry.list()).pipe(
      Effect.map((tools) => tools.map((t) => t.name)),
      Effect.provide(ToolSystem.layerNode(graphOf(options)))
    )
  )

describe("graphOf", () => {
  it("leaves the ported tools out of a command about a builtin", () => {
    expect(graphOf({ tool: "read_file" })).toMatchObject({ ported: false })
    expect(graphOf({ tool: "execute_javascript", workspace: Option.some("/tmp") })).toMatchObject({ ported: false })
  })

  it("keeps them for a ported tool, a name no tool has, and a command about no one tool", () => {
    for (const tool of ["diff_text", "read_fil", ""]) {
      expect(graphOf({ tool })).not.toHaveProperty("ported")
    }
    expect(graphOf({})).not.toHaveProperty("ported")
  })

  it.effect("builds a system of the 6 builtins for a builtin's command, and of all 52 otherwise", () =>
    Effect.gen(function*() {
      const builtinsOnly = yield* namesOf({ tool: "read_file" })
      expect(builtinsOnly).toEqual(["execute_javascript", "list_files", "read_file", "read_pdf", "web_search", "write_file"])
      const all = yield* namesOf({ tool: "diff_text" })
      expect(all).toHaveLength(52)
      expect(all).toEqual(expect.arrayContaining(["diff_text", ...builtinsOnly]))
    }))
})
