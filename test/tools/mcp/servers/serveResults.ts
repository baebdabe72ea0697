/**
 * The tools of the served-results tests (`resultHarness.ts`) served over this process's stdio
 * (`serveMcpStdio`), for resultStdio.slow.test.ts. Arguments: WORKSPACE [MAX_RESULT_CHARS]
 */
import { Effect } from "effect"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { serveMcpStdio } from "../../../../src/tools/mcp/stdio.js"
import { allTools } from "../resultHarness.js"

const [workspace = ".", max] = process.argv.slice(2)

Effect.runPromise(
  serveMcpStdio(max === undefined ? {} : { maxResultChars: Number(max) }).pipe(
    Effect.provide(ToolSystem.layerNode({ builtins: false, tools: allTools, workspace: Workspace.layerFixed(workspace) }))
  )
).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`serve failed: ${String(error)}\n`)
    process.exit(1)
  }
)
