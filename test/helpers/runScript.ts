/**
 * Runs a TypeScript test script in a child node process (under tsx) and waits for it to end
 * by itself: what tests that check "nothing keeps the process alive" need (execFile's 30 s
 * timeout ends one that hangs).
 */
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

/** How the script ended, and what it printed. */
export interface ScriptRun {
  readonly code: number | null
  readonly stdout: string
}

/** Runs `script` (a URL, typically `new URL("./x.ts", import.meta.url)`) with this node. */
export const runScript = (script: URL): Promise<ScriptRun> =>
  new Promise((resolve) => {
    const child = execFile(process.execPath, ["--import", "tsx", fileURLToPath(script)], { timeout: 30_000 })
    let out = ""
    child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()))
    child.on("exit", (code) => resolve({ code, stdout: out }))
  })
