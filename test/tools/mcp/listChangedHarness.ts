/**
 * What `listChanged.test.ts` and `listChanged.flood.slow.test.ts` share: the changing server
 * (servers/changing.mjs) bridged in a temp workspace, with its controls.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { tempDir } from "../../helpers/tempDir.js"
import { nodeServer, openBridged } from "./helpers.js"

/** The changing server, with its calls logged to a file; its proxies need no confirmation. */
export const setup = (extraArgs: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const ws = yield* tempDir("mcp-changes-")
    const calls = path.join(ws, "calls.log")
    const opened = yield* openBridged(ws, {
      changing: nodeServer("changing.mjs", ["--calls", calls, ...extraArgs.map((a) => a.replace("{ws}", ws))], {
        requiresConfirmation: false
      })
    })
    const control = (actions: ReadonlyArray<string>, notify = true) =>
      Effect.flatMap(opened.system.execute("changing__control", { actions, notify }), (r) =>
        r.success ? Effect.void : Effect.die(new Error(`control failed: ${r.error}`)))
    const called = () => (fs.existsSync(calls) ? fs.readFileSync(calls, "utf8").trim().split("\n") : [])
    const registry = opened.system.registry
    const listed = Effect.map(registry.list({ tags: ["mcp"] }), (tools) => tools.map((t) => t.name))
    return { ...opened, control, called, registry, listed }
  })
