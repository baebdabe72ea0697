/**
 * What `diffText.test.ts` and `diffText.slow.test.ts` share: `unifiedDiff` with its error as a
 * message, and that message's end.
 */
import { Effect } from "effect"
import { unifiedDiff } from "../../../../src/tools/ported/text/diffText.js"

/** `unifiedDiff`'s text, or its error's message. */
export const diffOf = (a: string, b: string, context: number) =>
  Effect.result(Effect.mapError(unifiedDiff(a, b, context), (error) => error.message))

export const TOO_BIG = "more than 100000 lines or 4194304 characters to compare at once; diff smaller parts"
