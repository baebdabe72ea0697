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
  readonly stderr: string
}

/** What else the script gets: arguments after its path, and variables added to this environment. */
export interface ScriptOptions {
  readonly args?: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
}

/** Runs `script` (a URL, typically `new URL("./x.ts", import.meta.url)`) with this node. */
export const runScript = (script: URL, options: ScriptOptions = {}): Promise<ScriptRun> =>
  new Promise((resolve) => {
    const child = execFile(process.execPath, ["--import", "tsx", fileURLToPath(script), ...(options.args ?? [])], {
      timeout: 30_000,
      env: { ...process.env, ...options.env }
    })
    let out = ""
    let err = ""
    child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()))
    child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()))
    // "close", not "exit": by then all of its output has been read
    child.on("close", (code) => resolve({ code, stdout: out, stderr: err }))
  })
