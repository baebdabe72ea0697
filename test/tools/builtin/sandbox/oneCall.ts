/**
 * A child process for the pool test: one sandbox call through the layer, then the process
 * must exit by itself (the layer's scope terminates the pool's Workers) and print the outcome.
 */
import { Effect } from "effect"
import { SandboxPool } from "../../../../src/services/SandboxPool.js"

const outcome = await Effect.runPromise(
  Effect.flatMap(SandboxPool, (pool) => pool.run("console.log('child'); 40 + 2", 5000)).pipe(
    Effect.provide(SandboxPool.layer())
  )
)
process.stdout.write(JSON.stringify(outcome))
