/**
 * What the reading tool tests share: a workspace with an `outside` sibling, a call through the
 * executor over the reading tools, and the `PathTraversalError` a call died with.
 *
 * On Effect 4: `NodeServices` for `NodeContext`, `Result` for `Either`, `Cause.findDefect` for
 * `dieOption`.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Effect, Exit, Layer, Option, Result } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { PathTraversalError, ToolSystem, Workspace } from "../../../../src/index.js"
import type { ToolExecutionResult } from "../../../../src/index.js"
import { readingTools } from "../../../../src/tools/ported/reading/index.js"
import { compileMatcher } from "../../../../src/tools/ported/reading/searchMatch.js"
import { type SearchResult, searchTree } from "../../../../src/tools/ported/reading/searchTree.js"
import { IDLE_WORKER_MS, idleWorkers, startSearchWorkers } from "../../../../src/tools/ported/reading/searchWorkers.js"
import { childOf } from "../../../../src/tools/shared/safeFsNode.js"
import { FIRST_BLOCK_BYTES } from "../../../../src/tools/shared/safeFsRead.js"
import { closeSync, openDirectorySync } from "../../../../src/tools/shared/safeFsSync.js"
import { makeTempDirSync } from "../../../helpers/tempDir.js"

/** A temp base with `ws` and `outside` beside it; `write` puts a file in `ws`. */
export const makeWorkspace = (prefix: string) => {
  const base = makeTempDirSync(prefix)
  const ws = Path.join(base, "ws")
  const outside = Path.join(base, "outside")
  Fs.mkdirSync(ws)
  Fs.mkdirSync(outside)
  const write = (rel: string, content: string | Uint8Array) => {
    const file = Path.join(ws, rel)
    Fs.mkdirSync(Path.dirname(file), { recursive: true })
    Fs.writeFileSync(file, content)
  }
  return { base, ws, outside, write, remove: () => Fs.rmSync(base, { recursive: true, force: true }) }
}

/**
 * A test file's `makeWorkspace`, made and filled by `fill` before the file's tests and removed
 * after them. Call it at a test file's top level, so that its hooks are that file's (a hook at a
 * shared module's top level would run once for all the files of a module graph). Its `base`,
 * `ws`, `outside` and `write` are the current workspace's, from the file's first `beforeAll` on.
 */
export const fileWorkspace = (prefix: string, fill: (fixture: ReturnType<typeof makeWorkspace>) => void) => {
  let current: ReturnType<typeof makeWorkspace> | undefined
  const made = () => {
    if (current === undefined) throw new Error(`the ${prefix} workspace is made in the test file's beforeAll`)
    return current
  }
  beforeAll(() => {
    current = makeWorkspace(prefix)
    fill(current)
  })
  afterAll(() => current?.remove())
  return {
    get base() {
      return made().base
    },
    get ws() {
      return made().ws
    },
    get outside() {
      return made().outside
    },
    write: (rel: string, content: string | Uint8Array) => made().write(rel, content)
  }
}

/** Runs one call of a reading tool through the executor, in a workspace rooted at `ws`. */
export const call = (ws: string, name: string, args: Record<string, unknown>) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute(name, args)).pipe(
    Effect.provide(ToolSystem.layerNode({ builtins: false, tools: [...readingTools], workspace: Workspace.layerFixed(ws) }))
  )

/** The `PathTraversalError` a call died with, if it did. */
export const traversalOf = (exit: Exit.Exit<unknown, unknown>): Option.Option<PathTraversalError> => {
  if (Exit.isSuccess(exit)) return Option.none()
  const defect = Cause.findDefect(exit.cause)
  return Result.isSuccess(defect) && defect.success instanceof PathTraversalError ? Option.some(defect.success) : Option.none()
}

/** The output of a successful call (fails the test with the error otherwise). */
export const outputOf = (result: ToolExecutionResult): string => {
  if (!result.success) throw new Error(`expected success, got ${result.errorCode}: ${result.error}`)
  return String(result.output)
}

/** `searchTree` over the workspace `ws` for a case-sensitive `pattern`, with the given limits, workers and probe. */
export const searchWorkspace = (
  ws: string,
  pattern: string,
  options: {
    readonly regex?: boolean
    readonly workers?: number
    readonly limit?: number
    readonly maxFiles?: number
    /** Files met before the workers start (default 0: at once). */
    readonly minFiles?: number
    /** Runs each time the walk resolves a link (a probe into the middle of a search). */
    readonly onLink?: () => void
  } = {}
): Effect.Effect<SearchResult> =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    const { onLink } = options
    const matcher = compileMatcher(pattern, { regex: options.regex ?? false, caseSensitive: true })
    if (Result.isFailure(matcher)) return yield* Effect.die(matcher.failure)
    return yield* Effect.scoped(searchTree({
      directory: Fs.realpathSync(ws),
      shownDir: ".",
      matcher: matcher.success,
      glob: undefined,
      limit: options.limit ?? 100_000,
      maxFiles: options.maxFiles ?? 200_000,
      resolveLink: onLink === undefined
        ? workspace.tryResolve
        : (path) => Effect.andThen(Effect.sync(onLink), workspace.tryResolve(path)),
      parallel: { workers: options.workers ?? 0, minFiles: options.minFiles ?? 0 }
    }))
  }).pipe(Effect.orDie, Effect.provide(Workspace.layerFixed(ws).pipe(Layer.provide(NodeServices.layer))))

/** The files of directory `dir` as one search job (the directory open until the scope closes: acquire it before the workers). */
export const directoryJob = (dir: string) =>
  Effect.acquireRelease(
    Effect.sync(() => openDirectorySync(Fs.realpathSync(dir))),
    (opened) => Effect.sync(() => closeSync(opened.fd, opened.path))
  ).pipe(Effect.map((opened) => ({ prefix: childOf(opened.fd, opened.path, ""), names: Fs.readdirSync(opened.path) })))

/** `count` search workers for the literal `pattern`, in the scope. */
export const literalWorkers = (pattern: string, count: number) =>
  Result.match(compileMatcher(pattern, { regex: false, caseSensitive: true }), {
    onFailure: (error) => Effect.die(new Error(error)),
    onSuccess: (matcher) => startSearchWorkers(count, matcher.prefilter, FIRST_BLOCK_BYTES)
  })

/**
 * Waits (up to three idle times) until no search worker is idle: where test files share one
 * module graph (the mutation run), an earlier file's search may have left workers idle.
 */
export const noIdleWorkers = async (): Promise<void> => {
  for (const until = Date.now() + 3 * IDLE_WORKER_MS; idleWorkers() > 0 && Date.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
