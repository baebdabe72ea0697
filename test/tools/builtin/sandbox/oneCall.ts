/**
 * A child process for the pool test: one sandbox call, no cleanup. It must exit by itself
 * (the pool's idle worker is `unref()`ed) and print the outcome.
 */
import { Effect } from "effect"
import { runInSandbox } from "../../../../src/tools/builtin/sandbox/pool.js"

const outcome = await Effect.runPromise(runInSandbox("console.log('child'); 40 + 2", 5000))
process.stdout.write(JSON.stringify(outcome))
