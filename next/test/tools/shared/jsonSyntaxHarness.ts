/**
 * What `jsonSyntax.test.ts` and `jsonSyntax.slow.test.ts` share: `JSON.parse`, the oracle, as a
 * yes or no.
 */

/** Whether `JSON.parse` takes `text`. */
export const parses = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
