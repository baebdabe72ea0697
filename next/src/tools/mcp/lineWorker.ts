/**
 * A large line from a server (a message of up to 10 MB) decoded and parsed off the main thread.
 *
 * Decoding 10 MB of UTF-8 and `JSON.parse` over it take tens of milliseconds each, and neither
 * can be cut into pieces: on a loaded machine each held the event loop past 100 ms. A worker
 * thread gets the line's bytes (moved, not copied) and posts back the parsed value; taking that
 * value in costs the main thread a copy of its strings, a few milliseconds.
 *
 * @since 0.5.0
 */
import { Worker } from "node:worker_threads"

/** What parsing a line gave: its value, or why it is not JSON. */
export type ParsedLine = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: Error }

/**
 * The worker: decodes the bytes it is given, parses them, cuts an error answer's message past
 * `maxErrorChars` (saying so, as `inbound.ts` does; the value is copied back to the main thread,
 * and a 10 MB message would be copied whole), posts the value (or the error's message).
 */
const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads")
const { bytes, maxErrorChars, maxDepth } = workerData
let answer
try {
  const value = JSON.parse(Buffer.from(bytes).toString("utf8"))
  const error = typeof value === "object" && value !== null ? value.error : undefined
  if (typeof error === "object" && error !== null && typeof error.message === "string" && error.message.length > maxErrorChars) {
    const text = error.message
    error.message = text.slice(0, maxErrorChars) + "\\n… [message cut at " + maxErrorChars + " of " + text.length + " characters]"
  }
  answer = { ok: true, value }
} catch (error) {
  answer = { ok: false, error: String(error instanceof Error ? error.message : error) }
}
try {
  parentPort.postMessage(answer)
} catch {
  // Copying a value nested some thousands of levels deep overflows the stack; the parts past
  // maxDepth are cut (marked), iteratively: what reads the message refuses that depth anyway.
  const cut = "[cut: nested deeper than " + maxDepth + " levels]"
  const stack = [[answer.value, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()
    for (const key of Object.keys(node)) {
      const child = node[key]
      if (typeof child !== "object" || child === null) continue
      if (depth + 1 >= maxDepth) node[key] = cut
      else stack.push([child, depth + 1])
    }
  }
  parentPort.postMessage(answer)
}
`

/**
 * How deep a value is copied back whole: deeper parts are cut (a value nested 100,000 levels
 * cannot be copied between threads at all), far past what any reader here accepts
 * (`MAX_SCHEMA_DEPTH` is 64).
 */
export const MAX_COPIED_DEPTH = 1_000

/** Room for a 10 MB message parsed, with its copies. */
const HEAP_MB = 256

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null

/**
 * Parses `line` (its bytes, without the line break) in a worker thread; `done` gets the value
 * or the error, once. The bytes are copied once into a buffer the worker then owns.
 */
export const parseInWorker = (line: Buffer, maxErrorChars: number, done: (parsed: ParsedLine) => void): void => {
  const bytes = new Uint8Array(line.length)
  bytes.set(line)
  let answered = false
  const answer = (parsed: ParsedLine) => {
    if (answered) return
    answered = true
    done(parsed)
  }
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: { bytes: bytes.buffer, maxErrorChars, maxDepth: MAX_COPIED_DEPTH },
    transferList: [bytes.buffer],
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB }
  })
  worker.once("message", (message: unknown) => {
    void worker.terminate()
    if (isRecord(message) && message.ok === true) return answer({ ok: true, value: message.value })
    const reason = isRecord(message) && typeof message.error === "string" ? message.error : "the line could not be parsed"
    answer({ ok: false, error: new SyntaxError(reason) })
  })
  worker.once("error", (error) => answer({ ok: false, error }))
  worker.once("exit", (code) => answer({ ok: false, error: new Error(`parsing the line ended its worker (exit code ${code})`) }))
}
