/**
 * Real git repositories for the git tool tests: made with the `git` binary, independent of the
 * user's and the system's configuration.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import type { ExecuteOptions } from "../../../../src/index.js"
import { gitTools } from "../../../../src/tools/ported/git/index.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"
export { withEnv } from "../../../helpers/env.js"

/** The environment of the fixture's own git commands: no system or user configuration. */
const fixtureEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0"
})

/** Runs git in `cwd` (the fixture's own setup, not a tool), returning stdout; throws on failure. */
export const git = (cwd: string, ...args: ReadonlyArray<string>): string =>
  ChildProcess.execFileSync("git", args, { cwd, env: fixtureEnv(), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

/** Runs git like `git` but never throws (a hostile repository's control run may fail). */
export const gitLoose = (cwd: string, ...args: ReadonlyArray<string>): void => {
  ChildProcess.spawnSync("git", args, { cwd, env: fixtureEnv(), stdio: "ignore", timeout: 10_000 })
}

/** A fresh repository in `dir` (created), branch `main`, with a local identity. */
export const initRepo = (dir: string, identity = true): string => {
  Fs.mkdirSync(dir, { recursive: true })
  git(dir, "init", "-q", "-b", "main")
  if (identity) {
    git(dir, "config", "user.name", "Test Author")
    git(dir, "config", "user.email", "author@example.com")
  }
  return dir
}

/** Writes a file (creating its directory) inside `dir`. */
export const write = (dir: string, file: string, content: string): void => {
  Fs.mkdirSync(Path.dirname(Path.join(dir, file)), { recursive: true })
  Fs.writeFileSync(Path.join(dir, file), content)
}

/** Commits everything in `dir` with `message`. */
export const commitAll = (dir: string, message: string): void => {
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "--no-verify", "-m", message)
}

/** The git tools' system for `workspace` (`ToolSystem.layerNode` provides Node's child processes). */
const gitSystem = (workspace: string) =>
  ToolSystem.layerNode({ builtins: false, tools: gitTools, workspace: Workspace.layerFixed(workspace) })

/** Runs a git tool with `workspace` as the root. */
export const runTool = (
  workspace: string,
  name: string,
  args: Record<string, unknown>,
  options: ExecuteOptions = { confirm: true }
) =>
  Effect.gen(function*() {
    const system = yield* ToolSystem
    return yield* system.execute(name, args, options)
  }).pipe(Effect.provide(gitSystem(workspace)))

/**
 * The git tools of one tool system with `workspace` as the root, built once for the calls a test
 * makes there and closed with the test's scope: `run(name, args, options)` runs one as
 * `runTool` does. A system of its own for each call (`runTool`) costs about a third more CPU.
 */
export const toolsIn = (workspace: string) =>
  Effect.map(
    Layer.build(gitSystem(workspace)),
    (context) => {
      const system = Context.get(context, ToolSystem)
      return (name: string, args: Record<string, unknown>, options: ExecuteOptions = { confirm: true }) =>
        system.execute(name, args, options)
    }
  )

/**
 * A test file's temp directory for its repositories, made before its tests and removed after
 * them. Meanwhile `GIT_CONFIG_GLOBAL` is `/dev/null`: the tools run with this process's
 * environment, and the user's ~/.gitconfig must stay out of them. `at(name)` is a path in it.
 */
export const gitTestBase = (prefix: string): { readonly at: (name: string) => string } => {
  let base = ""
  let savedGlobal: string | undefined
  beforeAll(() => {
    base = makeTempDirSync(prefix)
    savedGlobal = process.env.GIT_CONFIG_GLOBAL
    process.env.GIT_CONFIG_GLOBAL = "/dev/null"
  })
  afterAll(() => {
    if (savedGlobal === undefined) delete process.env.GIT_CONFIG_GLOBAL
    else process.env.GIT_CONFIG_GLOBAL = savedGlobal
    Fs.rmSync(base, { recursive: true, force: true })
  })
  return { at: (name) => Path.join(base, name) }
}

/**
 * `repoWithHistory()` for the test file whose `gitTestBase` is `base`: each call a new repository
 * there with two commits: README.md, then src/app.ts and a file with a unicode name.
 */
export const reposWithHistory = (base: { readonly at: (name: string) => string }) => {
  let count = 0
  return (): string => {
    const dir = initRepo(base.at(`repo-${++count}`))
    write(dir, "README.md", "# Project\n")
    commitAll(dir, "Initial commit")
    write(dir, "src/app.ts", "export const x = 1\n")
    write(dir, "docs/héllo wörld.md", "unicode\n")
    commitAll(dir, "Add app and docs")
    return dir
  }
}

/**
 * `repo(name?)` for the test file whose `gitTestBase` is `base`: a repository there (`repo-1`,
 * `repo-2`, ... unless named) with one commit of README.md.
 */
export const readmeRepos = (base: { readonly at: (name: string) => string }) => {
  let count = 0
  return (name = `repo-${++count}`): string => {
    const dir = initRepo(base.at(name))
    write(dir, "README.md", "# Project\n")
    commitAll(dir, "Initial commit")
    return dir
  }
}
