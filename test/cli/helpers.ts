/**
 * The real executable (TypeScript sources through tsx) as a child process, for the CLI tests.
 */
import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const main = path.join(root, "src/cli/main.ts")

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `effect-tool-system ARGS...` from the repository root (no `WORKSPACE_ROOT`). */
export const cli = (...args: Array<string>) =>
  new Promise<CliRun>((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", main, ...args],
      { cwd: root, encoding: "utf8", env: { ...process.env, WORKSPACE_ROOT: "" }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    )
  })
