/**
 * Environment variables set for a test's scope.
 */
import { Effect } from "effect"

/** Sets environment variables for the scope, restoring the previous values when it closes. */
export const withEnv = (vars: Record<string, string | undefined>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
      for (const [k, v] of Object.entries(vars)) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
      return before
    }),
    (before) =>
      Effect.sync(() => {
        for (const [k, v] of Object.entries(before)) {
          if (v === undefined) delete process.env[k]
          else process.env[k] = v
        }
      })
  )
