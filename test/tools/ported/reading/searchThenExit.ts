/**
 * A child process for the search pool test: a search with a worker thread over a small tree,
 * no shutdown; it prints how many workers were kept and how long after the search the process
 * ended, and must end by itself (an idle worker and its timer are unreferenced).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Result, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Workspace } from "../../../../src/index.js"
import { compileMatcher } from "../../../../src/tools/ported/reading/searchMatch.js"
import { idleWorkers } from "../../../../src/tools/ported/reading/searchWorkers.js"
import { searchTree } from "../../../../src/tools/ported/reading/searchTree.js"

const root = Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "search-then-exit-")))
for (let i = 0; i < 40; i++) Fs.writeFileSync(Path.join(root, `f${i}.txt`), i % 4 === 0 ? `the needle ${i}\n` : "hay\n")
const matcher = compileMatcher("needle", { regex: false, caseSensitive: true })
if (Result.isFailure(matcher)) throw new Error("the pattern does not compile")

const result = await Effect.runPromise(
  Effect.gen(function*() {
    const workspace = yield* Workspace
    return yield* Effect.scoped(searchTree({
      directory: root,
      shownDir: ".",
      matcher: matcher.success,
      glob: undefined,
      limit: 1000,
      maxFiles: 1000,
      resolveLink: workspace.tryResolve,
      parallel: { workers: 1, minFiles: 0 }
    }))
  }).pipe(Effect.provide(Workspace.layerFixed(root).pipe(Layer.provide(NodeServices.layer))))
)
Fs.rmSync(root, { recursive: true, force: true })
const searched = performance.now()
const kept = idleWorkers()
process.on("exit", () => {
  process.stdout.write(JSON.stringify({ lines: result.lines.length, kept, exitAfterMs: performance.now() - searched }))
})
