/**
 * The UTF-8 length of a long string, counted in slices (`Buffer.byteLength` on each) with a
 * turn of the event loop between them: one call over 30 Mi characters of non-Latin text holds
 * the thread for 40 ms on a quiet machine, over 100 ms on a loaded one (issue 47 item 6).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { inSlices } from "./slices.js"
import { isHighSurrogate } from "./text.js"

/** Code units counted per step (well under a millisecond). */
const STEP_CHARS = 256 * 1024

/**
 * `Buffer.byteLength(text, "utf8")`, in slices. A slice never ends between the two halves of a
 * pair (counted apart they would be 3 + 3 bytes, not 4); a lone surrogate counts 3, as there.
 */
export const utf8Length = (text: string): Effect.Effect<number> =>
  Effect.suspend(() => {
    let at = 0
    let bytes = 0
    return inSlices(() => {
      let end = Math.min(text.length, at + STEP_CHARS)
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--
      bytes += Buffer.byteLength(text.slice(at, end), "utf8")
      at = end
      return at >= text.length
    }).pipe(Effect.map(() => bytes))
  })
