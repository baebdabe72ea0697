/**
 * A JSON document checked, parsed, narrowed by a pointer and printed in a worker thread with a
 * deadline and a heap cap (`shared/scriptWorker.ts`), for `read_json`, `query_json` and
 * `format_json`. On the main thread each step of a 10 MiB document holds the event loop
 * (measured on a loaded 2-core machine, 12 MB of objects): the nesting scan 50 ms, `JSON.parse`
 * 50-110 ms, the pretty print 140 ms to 1 s, and locating a syntax error 330-450 ms; a deeply
 * nested document pretty-printed grows a hundredfold (13 ms a KiB). No timeout can stop a
 * synchronous call; the worker is terminated at the deadline or when the call is interrupted.
 *
 * The worker runs the same algorithms as the host's `nestsDeeperThan` (`boundedJson.ts`),
 * `firstSyntaxError` and `positionOf` (`jsonSyntax.ts`) and `walkPointer` (`jsonPointer.ts`),
 * written out in its source (a worker cannot load this package's TypeScript modules, and a
 * bundle has no files of its own next to it); `jsonFreeze.slow.test.ts` checks both give the same
 * answers. Only small results cross back: the head of the printed text (`maxChars + 1`
 * characters) and its length, the text around a syntax error, or where a pointer stopped; the
 * host writes the messages (`jsonRender.ts`), so they have one wording.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import { availableParallelism } from "node:os"
import type { LocatedProblem } from "../../shared/jsonSyntax.js"
import { runScriptWorker, type ScriptWorkerFailed } from "../../shared/scriptWorker.js"
import { shareString, type SharedText, TEXT_OF_SOURCE } from "../../shared/sharedText.js"
import type { PointerStop } from "./jsonPointer.js"

/** How long one document may take: within the tools' 30 s timeout, so the worker's own message wins. */
export const JSON_DEADLINE: Duration.Input = "20 seconds"

/** The worker's heap cap: a 10 MiB array of small objects parses to about 150 MB. */
export const JSON_HEAP_MB = 512

/** Most JSON workers running at once in this process: one per core (as `shared/diffWorker.ts`). */
const slots = Semaphore.makeUnsafe(Math.max(1, availableParallelism()))

/** The document: text (copied to shared memory in slices), or a file's UTF-8 bytes, moved to the worker. */
export type JsonSource = string | { readonly bytes: Uint8Array }

/** What the worker does with the document. */
export interface JsonJob {
  readonly maxDepth: number
  /** The pointer's steps; `null`: only check the document (the pointer itself is malformed). */
  readonly tokens: ReadonlyArray<string> | null
  readonly indent: number
  /** How much of the printed text comes back. */
  readonly maxChars: number
  /** How much text around a syntax error comes back (`EXCERPT_AROUND`). */
  readonly excerpt: { readonly before: number; readonly after: number }
  /** Keys of an object where a pointer stops that come back (`POINTER_KEYS_SHOWN`). */
  readonly keysShown: number
}

/** What the worker answers. */
export type JsonAnswer =
  /** `head` is the printed text, or its first `maxChars + 1` characters when `length` is more. */
  | { readonly ok: true; readonly head: string; readonly length: number }
  | { readonly ok: false; readonly reason: "too-deep" }
  /** `JSON.parse` refused it (`message`), and where the scan found the problem (`syntaxErrorAt`'s arguments). */
  | {
    readonly ok: false
    readonly reason: "syntax"
    readonly message: string
    readonly located:
      | { readonly problem: LocatedProblem; readonly window: string; readonly offset: number; readonly lineStart: number }
      | null
  }
  | { readonly ok: false; readonly reason: "pointer"; readonly stop: PointerStop }
  /** `JSON.stringify` failed: the text would be longer than a string can be. */
  | { readonly ok: false; readonly reason: "print"; readonly message: string }

const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads")
const { job } = workerData
${TEXT_OF_SOURCE}
// boundedJson.ts's nestsDeeperThan
const nestsDeeperThan = (text, maxDepth) => {
  let depth = 0, inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) { if (++depth > maxDepth) return true }
    else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}
// jsonSyntax.ts's firstSyntaxError: the first offset where the text is not JSON, and what was expected
const isDigit = (c) => c >= 0x30 && c <= 0x39
const isSpace = (c) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
const HEX = /^[0-9a-fA-F]{4}$/
const firstSyntaxError = (text) => {
  const n = text.length
  const stack = []
  let i = 0
  const skip = () => { while (isSpace(text.charCodeAt(i))) i++ }
  const problem = (expected) => ({ offset: i, expected })
  const string = () => {
    i++
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c === 0x22) { i++; return undefined }
      if (c < 0x20) return problem("a closing quote (a control character must be escaped)")
      if (c === 0x5c) {
        const e = text[i + 1]
        if (e === "u") {
          if (!HEX.test(text.slice(i + 2, i + 6))) return problem("four hex digits after \\u")
          i += 6
        } else if (e !== undefined && "\"\\/bfnrt".includes(e)) i += 2
        else return problem("a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)")
      } else i++
    }
    return problem("a closing quote")
  }
  const number = () => {
    if (text.charCodeAt(i) === 0x2d) i++
    if (text.charCodeAt(i) === 0x30) i++
    else if (isDigit(text.charCodeAt(i))) while (isDigit(text.charCodeAt(i))) i++
    else return problem("a digit")
    if (text.charCodeAt(i) === 0x2e) {
      i++
      if (!isDigit(text.charCodeAt(i))) return problem("a digit after the decimal point")
      while (isDigit(text.charCodeAt(i))) i++
    }
    const e = text.charCodeAt(i)
    if (e === 0x65 || e === 0x45) {
      i++
      const sign = text.charCodeAt(i)
      if (sign === 0x2b || sign === 0x2d) i++
      if (!isDigit(text.charCodeAt(i))) return problem("a digit in the exponent")
      while (isDigit(text.charCodeAt(i))) i++
    }
    return undefined
  }
  const value = () => {
    skip()
    const c = text.charCodeAt(i)
    if (c === 0x7b || c === 0x5b) { stack.push(c); i++; return "opened" }
    if (c === 0x22) return string() ?? "done"
    if (c === 0x2d || isDigit(c)) return number() ?? "done"
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) { i += word.length; return "done" }
    }
    return problem("a value (an object, array, string, number, true, false or null)")
  }
  const member = () => {
    skip()
    if (text.charCodeAt(i) !== 0x22) return problem("a property name in double quotes")
    const bad = string()
    if (bad !== undefined) return bad
    skip()
    if (text.charCodeAt(i) !== 0x3a) return problem("':' after the property name")
    i++
    return value()
  }
  const closing = (open) => (open === 0x7b ? 0x7d : 0x5d)
  let step = value()
  for (;;) {
    if (typeof step === "object") return step
    const top = stack[stack.length - 1]
    if (step === "opened") {
      skip()
      if (text.charCodeAt(i) === closing(top)) { stack.pop(); i++; step = "done" }
      else step = top === 0x7b ? member() : value()
      continue
    }
    skip()
    if (top === undefined) return i < n ? problem("the end of the text after the JSON value") : undefined
    const c = text.charCodeAt(i)
    if (c === 0x2c) { i++; step = top === 0x7b ? member() : value() }
    else if (c === closing(top)) { stack.pop(); i++ }
    else return problem(top === 0x7b ? "',' or '}' after a property value" : "',' or ']' after an array item")
  }
}
// jsonSyntax.ts's positionOf: 1-based line and column (a surrogate pair one character)
const isHigh = (c) => c >= 0xd800 && c <= 0xdbff
const positionOf = (text, offset) => {
  let line = 1, lineStart = 0
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 0x0a) { line++; lineStart = i + 1 }
  let column = 1, previous = 0
  for (let i = lineStart; i < offset; i++) {
    const c = text.charCodeAt(i)
    if (!(c >= 0xdc00 && c <= 0xdfff && isHigh(previous))) column++
    previous = c
  }
  return { line, column, lineStart }
}
const syntaxAnswer = (text, error) => {
  const message = error instanceof Error ? error.message : String(error)
  const found = firstSyntaxError(text)
  if (found === undefined) return { ok: false, reason: "syntax", message, located: null }
  const { line, column, lineStart } = positionOf(text, found.offset)
  const start = Math.max(lineStart, found.offset - job.excerpt.before)
  const window = text.slice(start, Math.min(text.length, found.offset + job.excerpt.after))
  return {
    ok: false, reason: "syntax", message,
    located: { problem: { expected: found.expected, line, column }, window, offset: found.offset - start, lineStart: lineStart - start }
  }
}
// jsonPointer.ts's walkPointer: own keys only, canonical indices within the length
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/
const walk = (document, tokens) => {
  let current = document
  for (let step = 0; step < tokens.length; step++) {
    const token = tokens[step]
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(token) || Number(token) >= current.length) return { stop: { step, kind: "array", length: current.length } }
      current = current[Number(token)]
    } else if (typeof current === "object" && current !== null) {
      if (!Object.hasOwn(current, token)) {
        const keys = Object.keys(current)
        return { stop: { step, kind: "object", keys: keys.slice(0, job.keysShown), count: keys.length } }
      }
      current = current[token]
    } else {
      return { stop: { step, kind: "value", of: current === null ? "null" : typeof current } }
    }
  }
  return { value: current }
}
const answer = (() => {
  const text = textOf(job.text)
  if (nestsDeeperThan(text, job.maxDepth)) return { ok: false, reason: "too-deep" }
  let document
  try {
    document = JSON.parse(text)
  } catch (error) {
    return syntaxAnswer(text, error)
  }
  if (job.tokens === null) return { ok: true, head: "", length: 0 }
  const walked = walk(document, job.tokens)
  if (walked.stop !== undefined) return { ok: false, reason: "pointer", stop: walked.stop }
  let out
  try {
    out = JSON.stringify(walked.value, null, job.indent)
  } catch (error) {
    return { ok: false, reason: "print", message: error instanceof Error ? error.message : String(error) }
  }
  return { ok: true, head: out.length <= job.maxChars ? out : out.slice(0, job.maxChars + 1), length: out.length }
})()
parentPort.postMessage(answer)
`

const isAnswer = (u: unknown): u is JsonAnswer =>
  typeof u === "object" && u !== null && "ok" in u && (u.ok === true ? "head" in u && "length" in u : "reason" in u)

/**
 * Runs `job` on `source` in a worker (at most one per core at once; a call waits its turn,
 * its timeout still fires); fails with why the worker did not answer (too slow, out of memory).
 */
export const runJsonWorker = (
  source: JsonSource,
  job: JsonJob,
  deadline: Duration.Input = JSON_DEADLINE
): Effect.Effect<JsonAnswer, ScriptWorkerFailed> =>
  slots.withPermits(1)(Effect.gen(function*() {
    // a string crosses through shared memory, copied in slices; a file's bytes are moved (their buffer is their own)
    const text: SharedText = typeof source === "string" ? yield* shareString(source) : { encoding: "utf8", bytes: source.bytes }
    const moved = typeof source !== "string" && source.bytes.buffer instanceof ArrayBuffer ? [source.bytes.buffer] : undefined
    const answer = yield* runScriptWorker(WORKER_SOURCE, { job: { ...job, text } }, {
      deadline,
      heapMb: JSON_HEAP_MB,
      what: "the JSON parser",
      ...(moved === undefined ? {} : { transfer: moved })
    })
    return isAnswer(answer) ? answer : yield* Effect.die(new Error("the JSON worker answered an unknown shape"))
  }))
