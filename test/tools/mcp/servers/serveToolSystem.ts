/**
 * `effect-tool-system mcp` as the command line runs it (`runMcpCommand`), for the server
 * tests: serves the builtins (and the servers of an --mcp-config file) over stdio.
 * Arguments: WORKSPACE [MODE] [yes|ask] [MCP_CONFIG_FILE]
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Option } from "effect"
import * as AgentMode from "../../../../src/domain/AgentMode.js"
import { runMcpCommand } from "../../../../src/tools/mcp/stdio.js"

const [workspace, mode = "default", yes = "ask", mcpConfig] = process.argv.slice(2)

Effect.runPromise(
  runMcpCommand({
    workspace,
    mode: Option.getOrUndefined(AgentMode.fromName(mode)),
    yes: yes === "yes",
    mcpConfig
  }).pipe(Effect.provide(NodeServices.layer))
).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`serve failed: ${String(error)}\n`)
    process.exit(1)
  }
)
