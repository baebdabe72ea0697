/**
 * The command line for the CLI tests: the real executable (TypeScript sources through tsx) as
 * a child process, or the same program run in this process.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect } from "effect"
import { execFile } from "node:child_process"
import { Console as NodeConsole } from "node:console"
import * as path from "node:path"
import { PassThrough } from "node:stream"
import { fileURLToPath } from "node:url"
import { runCommandLine } from "../../src/cli/program.js"
import { stderrLogger } from "../../src/cli/run.js"

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const main = path.join(root, "src/cli/main.ts")

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `executable ...args` (Node 22, this process's) from the repository root (no `WORKSPACE_ROOT`). */
export const runNode = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) =>
  new Promise<CliRun>((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: root, encoding: "utf8", env: { ...process.env, WORKSPACE_ROOT: "", ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    )
  })

/** Runs `effect-tool-system ARGS...` from the sources (tsx) as a child process, from the repository root. */
export const cli = (...args: Array<string>) => runNode(["--import", "tsx", main, ...args])

/**
 * Runs `effect-tool-system ARGS...` in this process (`runCommandLine`, what `main` runs), with
 * its Console and logs captured: what it printed on stdout and stderr, and its exit code, as
 * `cli` gives them. The code under test is this process's, so a mutation test sees it (it
 * cannot see a child's). As the child: no `WORKSPACE_ROOT`, paths relative to the repository.
 * What only the executable does (the argv of `process`, the code cache, the bundle) stays
 * with `cli`.
 */
export const cliInProcess = (...args: Array<string>): Promise<CliRun> => {
  const captured = capturedConsole()
  const saved = process.env.WORKSPACE_ROOT
  delete process.env.WORKSPACE_ROOT
  return Effect.runPromise(
    runCommandLine(["node", "effect-tool-system", ...args]).pipe(
      Effect.provide(stderrLogger),
      Effect.provideService(Console.Console, captured.console),
      Effect.provide(NodeServices.layer)
    )
  ).then(async (code) => {
    // PassThrough streams hand their data on in a later tick
    await new Promise((resolve) => setImmediate(resolve))
    return { code, stdout: captured.stdout(), stderr: captured.stderr() }
  })
    .finally(() => {
      if (saved !== undefined) process.env.WORKSPACE_ROOT = saved
    })
}

/**
 * An Effect `Console` that keeps what is printed: `stdout()` and `stderr()` give it back as
 * text. On Effect 4 a Node `Console` is one (the interface is the global console's).
 */
export const capturedConsole = (): {
  readonly console: InstanceType<typeof NodeConsole>
  readonly stdout: () => string
  readonly stderr: () => string
} => {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const out: Array<Buffer> = []
  const err: Array<Buffer> = []
  stdout.on("data", (chunk: Buffer) => out.push(chunk))
  stderr.on("data", (chunk: Buffer) => err.push(chunk))
  return {
    console: new NodeConsole({ stdout, stderr, colorMode: false }),
    stdout: () => Buffer.concat(out).toString("utf8"),
    stderr: () => Buffer.concat(err).toString("utf8")
  }
}
