/**
 * The tests of `apiSurface.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * The public surface (`scripts/apiSurface.mjs`): every declaration a user reaches through one
 * of the package's entries has a description, `@since` and `@category`, none is `@internal`,
 * and every other export of a module an entry re-exports from is documented or `@internal`.
 * Parsed, not type-checked, so it stays a fast test; the API reference (`docs/api/`) is
 * checked against the sources by `npm run docs:api -- --check` in `.ci/run`. The checker
 * finds each kind of problem in a stand-in entry (`test/fixtures/apiSurface/`).
 */
import { describe, expect, it } from "@effect/vitest"
import { publicDeclarations, surfaceProblems } from "../../scripts/apiSurface.mjs"

describe("the public surface", () => {

  it("every export of every entry, and of the modules they re-export, has @since and @category (or is @internal)", () => {
    expect(surfaceProblems()).toEqual([])
  })

  it("reaches through re-exports and namespaces to the declarations", () => {
    const via = new Map([...publicDeclarations().values()].map((d) => [d.via, `${d.file}#${d.name}`]))
    expect(via.get("effect-tool-system#ToolSystem")).toBe("src/services/ToolSystem.ts#ToolSystem")
    expect(via.get("effect-tool-system#GraphOptions")).toBe("src/layers/ToolSystem.ts#GraphOptions")
    expect(via.get("effect-tool-system#ToolNotFound")).toBe("src/domain/errors.ts#ToolNotFound")
    expect(via.get("effect-tool-system#Tool.make")).toBe("src/tools/define.ts#make")
    expect(via.get("effect-tool-system/mcp#McpServerStatus")).toBe("src/tools/mcp/serverHandle.ts#ServerStatus")
    expect(via.get("effect-tool-system/effect-ai#toEffectAiToolkit")).toBe("src/interop/effectAi.ts#toEffectAiToolkit")
    expect(via.get("effect-tool-system/testing#TestModeGate.layerOpen")).toBe("src/testing/TestModeGate.ts#layerOpen")
    expect(via.get("effect-tool-system/testing#SANDBOX_ESCAPE_VECTORS")).toBe(
      "src/tools/builtin/sandbox/escapeVectors.ts#SANDBOX_ESCAPE_VECTORS"
    )
    expect(via.get("effect-tool-system/testing#TestQuestionHandler.layerScripted")).toBe(
      "src/testing/TestQuestionHandler.ts#layerScripted"
    )
    expect(via.get("effect-tool-system/testing#TestUrlPolicy.layerAllowLoopback")).toBe(
      "src/testing/TestUrlPolicy.ts#layerAllowLoopback"
    )
  })
})
