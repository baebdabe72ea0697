/**
 * A child process for the pool test: one sandbox call through the `SandboxPool` layer, built in
 * a scope that is never closed, so its Worker stays alive and warm. It prints the outcome and
 * the pool's stats; the process must then exit by itself (idle Workers are unref'd).
 */
import { Context, Effect, Layer, Scope } from "effect"
import { SandboxPool } from "../../../../src/services/SandboxPool.js"

const report = await Effect.runPromise(
  Effect.gen(function*() {
    // never closed: nothing terminates the pool's Workers
    const scope = yield* Scope.make()
    const pool = Context.get(yield* Layer.buildWithScope(SandboxPool.layer(), scope), SandboxPool)
    const outcome = yield* pool.run("console.log('child'); 40 + 2", 5000)
    return { outcome, stats: yield* pool.stats }
  })
)
process.stdout.write(JSON.stringify(report))
