/**
 * The message of a handler's defect, as a crashed call's result gives it: bounded to 500
 * characters, and never a second failure (a defect's own formatting may recurse over deep data,
 * or throw).
 *
 * @since 0.6.0
 * @internal
 */
import * as Cause from "effect/Cause"

/** `cause`'s defect as text, at most 500 characters. */
export const crashMessage = (cause: Cause.Cause<unknown>): string => {
  try {
    const text = String(Cause.squash(cause))
    return text.length > 500 ? `${text.slice(0, 499)}…` : text
  } catch {
    return "an unprintable defect"
  }
}
