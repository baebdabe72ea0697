/**
 * The command line for the CLI tests: the real executable (TypeScript sources through tsx) as
 * a child process, or the same program run in this process.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Console, Effect, Layer } from "effect"
import { execFile } from "node:child_process"
import { Console as NodeConsole } from "node:console"
import { PassThrough } from "node:stream"
import * as path from "node:path"
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
      Effect.withConsole(captured.console),
      Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer))
    )
  ).then((code) => ({ code, stdout: captured.stdout(), stderr: captured.stderr() }))
    .finally(() => {
      if (saved !== undefined) process.env.WORKSPACE_ROOT = saved
    })
}

/** An Effect `Console` that keeps what is printed: `stdout()` and `stderr()` give it back as text. */
export const capturedConsole = (): { readonly console: Console.Console; readonly stdout: () => string; readonly stderr: () => string } => {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const out: Array<Buffer> = []
  const err: Array<Buffer> = []
  stdout.on("data", (chunk: Buffer) => out.push(chunk))
  stderr.on("data", (chunk: Buffer) => err.push(chunk))
  return {
    console: consoleOf(new NodeConsole({ stdout, stderr, colorMode: false })),
    stdout: () => Buffer.concat(out).toString("utf8"),
    stderr: () => Buffer.concat(err).toString("utf8")
  }
}

/** An Effect `Console` over a Node one (which writes to the streams it was made with). */
const consoleOf = (node: InstanceType<typeof NodeConsole>): Console.Console => ({
  [Console.TypeId]: Console.TypeId,
  assert: (condition, ...args) => Effect.sync(() => node.assert(condition, ...args)),
  clear: Effect.sync(() => node.clear()),
  count: (label) => Effect.sync(() => node.count(label)),
  countReset: (label) => Effect.sync(() => node.countReset(label)),
  debug: (...args) => Effect.sync(() => node.debug(...args)),
  dir: (item, options) => Effect.sync(() => node.dir(item, options)),
  dirxml: (...args) => Effect.sync(() => node.dirxml(...args)),
  error: (...args) => Effect.sync(() => node.error(...args)),
  group: (options) => Effect.sync(() => (options?.collapsed === true ? node.groupCollapsed(options.label) : node.group(options?.label))),
  groupEnd: Effect.sync(() => node.groupEnd()),
  info: (...args) => Effect.sync(() => node.info(...args)),
  log: (...args) => Effect.sync(() => node.log(...args)),
  table: (data, properties) => Effect.sync(() => node.table(data, properties)),
  time: (label) => Effect.sync(() => node.time(label)),
  timeEnd: (label) => Effect.sync(() => node.timeEnd(label)),
  timeLog: (label, ...args) => Effect.sync(() => node.timeLog(label, ...args)),
  trace: (...args) => Effect.sync(() => node.trace(...args)),
  warn: (...args) => Effect.sync(() => node.warn(...args)),
  unsafe: node
})
