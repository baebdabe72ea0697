/**
 * The linear passes `diff_text` makes over its two texts before any diff (each up to the 32 Mi
 * characters a call may carry), kept off the event loop's critical path: the shared start and
 * end are found by native comparisons of whole blocks (a character loop took 157 ms on 16 Mi),
 * and the passes that must look at every line (counting them, comparing line endings) run in
 * slices with a turn of the event loop between them (`shared/slices.ts`): normalising the line
 * endings of 16 Mi characters with a regular expression took about 2 s in one go.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { inSlices } from "../../shared/slices.js"

/** Characters compared at once when looking for where the texts start or stop agreeing. */
const BLOCK = 64 * 1024
/** Line breaks a counting step passes (a few hundred microseconds). */
const STEP_LINES = 4096

/** Start of the line holding `i` (the index after the previous `\n`). */
const lineStartAt = (text: string, i: number): number => (i <= 0 ? 0 : text.lastIndexOf("\n", i - 1) + 1)

/**
 * How many characters `a` and `b` share at their start (`fromEnd`: at their end), at most
 * `limit`: blocks compared natively, halved around the first that differs.
 */
const sharedLength = (a: string, b: string, limit: number, fromEnd: boolean): number => {
  const part = (t: string, at: number, size: number) =>
    fromEnd ? t.slice(t.length - at - size, t.length - at) : t.slice(at, at + size)
  let n = 0
  for (let size = BLOCK; size > 0;) {
    if (n + size <= limit && part(a, n, size) === part(b, n, size)) n += size
    else size >>= 1
  }
  return n
}

/** Moves `start` (a line start) back by `lines` lines. */
const backLines = (text: string, start: number, lines: number): number => {
  let s = start
  for (let k = 0; k < lines && s > 0; k++) s = lineStartAt(text, s - 1)
  return s
}

/** Moves `end` (a line start, or the text's end) forward by `lines` lines. */
const forwardLines = (text: string, end: number, lines: number): number => {
  let e = end
  for (let k = 0; k < lines && e < text.length; k++) {
    const nl = text.indexOf("\n", e)
    e = nl === -1 ? text.length : nl + 1
  }
  return e
}

/**
 * The differing middle of `a` and `b` with `context` shared lines around it: where it starts in
 * each (the same offset, since what comes before is equal) and where it ends. Each bound is a
 * line start (just after a `\n`) or a text's end. Native work only, linear in the texts.
 */
export const middleOf = (a: string, b: string, context: number) => {
  const shortest = Math.min(a.length, b.length)
  const p = sharedLength(a, b, shortest, false)
  const start = backLines(a, lineStartAt(a, p), context)
  // the shared end, not reaching into the shared start, begun at a line start in both
  const s = sharedLength(a, b, shortest - lineStartAt(a, p), true)
  let endA = a.length - s
  const atLineStart = (t: string, i: number) => i === 0 || t.charCodeAt(i - 1) === 0x0a
  if (s > 0 && !(atLineStart(a, endA) && atLineStart(b, b.length - s))) {
    // the shared end is the same text in both: its first line break is at the same offset
    const nl = a.indexOf("\n", endA)
    endA += nl === -1 ? s : nl + 1 - endA
  }
  endA = forwardLines(a, endA, context)
  // b's end is as far from its end as a's
  const endB = b.length - (a.length - endA)
  return { start, endA, endB }
}

/** Line feeds in `text[from, to)`, counted in slices. */
export const newlines = (text: string, from: number, to: number): Effect.Effect<number> =>
  Effect.suspend(() => {
    let n = 0
    let at = text.indexOf("\n", from)
    return inSlices(() => {
      for (let k = 0; k < STEP_LINES; k++) {
        if (at === -1 || at >= to) return true
        n++
        at = text.indexOf("\n", at + 1)
      }
      return false
    }).pipe(Effect.map(() => n))
  })

/**
 * The lines of a part of a text: a last line without a line break counts, the empty "line" after
 * a final one does not.
 */
export const linesOf = (part: string): Effect.Effect<number> =>
  Effect.map(newlines(part, 0, part.length), (n) => n + (part === "" || part.endsWith("\n") ? 0 : 1))

/** The next line break (`\r` or `\n`) in `text` at or after `from`, or its length, with the searches cached. */
const breaks = (text: string) => {
  let cr = -2
  let lf = -2
  return (from: number): number => {
    // a cached position behind `from` is searched again; -1 (none left) never is
    if (cr !== -1 && cr < from) cr = text.indexOf("\r", from)
    if (lf !== -1 && lf < from) lf = text.indexOf("\n", from)
    const next = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf)
    return next === -1 ? text.length : next
  }
}

/** The index after the line break at `at` (`\r\n` is one). */
const pastBreak = (text: string, at: number): number =>
  at + (text.charCodeAt(at) === 0x0d && text.charCodeAt(at + 1) === 0x0a ? 2 : 1)

/**
 * Whether `a` and `b` are the same text once every `\r\n` and lone `\r` is read as `\n`, found
 * without building either: line by line, each line compared natively, in slices.
 */
export const sameButLineEndings = (a: string, b: string): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    const nextA = breaks(a)
    const nextB = breaks(b)
    let i = 0
    let j = 0
    let same = false
    return inSlices(() => {
      const ea = nextA(i)
      const eb = nextB(j)
      if (ea - i !== eb - j || a.slice(i, ea) !== b.slice(j, eb)) return true
      if (ea === a.length || eb === b.length) {
        same = ea === a.length && eb === b.length
        return true
      }
      i = pastBreak(a, ea)
      j = pastBreak(b, eb)
      return false
    }).pipe(Effect.map(() => same))
  })
