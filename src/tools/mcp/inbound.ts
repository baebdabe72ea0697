/**
 * What a server's stdout brings, read as the bridge takes it: lines (`lineBuffer.ts`, at most
 * `MAX_MESSAGE_BYTES` each), the answers to the bridge's own calls taken first
 * (`directCalls.ts`), and every other line checked as the SDK's `JSONRPCMessageSchema` checks
 * it (as the SDK's own stdio transport does) and handed to the SDK client.
 *
 * What the server sends besides the answers to our requests (its requests, notifications,
 * lines that are not messages, answers to nothing) is counted per second, before the schema
 * runs over it: past `maxPushedPerSecond` messages or `maxPushedBytesPerSecond` bytes the server
 * is refused, and nothing more of what it sent is read. A message past the size cap is refused
 * the same way. The answers to our requests are not counted: there are as many as we asked for.
 *
 * Lines are read in slices of at most `SLICE_MS` of work and `SLICE_LINES` lines, the event
 * loop running between them (one pipe read brings up to 64 KiB, a thousand small messages, and
 * Node hands several reads over in one turn): while a backlog is read, the server's stdout is
 * paused, so the pipe holds what comes next and the server waits. A line over
 * `LARGE_LINE_BYTES` is decoded and parsed in a worker thread, in order. The rate is
 * checked on what comes before any of it is parsed: when the lines that came, less one answer
 * per request of ours still waiting, already pass the second's bound of messages, the server
 * is refused at once.
 *
 * @since 0.5.0
 */
import { type JSONRPCMessage, type RequestId, specTypeSchemas, type StandardSchemaV1Sync } from "@modelcontextprotocol/client"
import type { DirectCalls } from "./directCalls.js"
import { makeLineBuffer } from "./lineBuffer.js"
import { type ParsedLine, parseInWorker } from "./lineWorker.js"
import { makeRateMeter, pushedTooMuch, type RefusalKind, type ServerLimits } from "./serverLimits.js"

/** Most bytes of one message from a server (the SDK's default). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024

/**
 * Longest stretch of reading lines in one turn of the event loop (ms). A line is not cut:
 * one large message is parsed whole.
 */
export const SLICE_MS = 5

/**
 * Most lines read in one turn. What a message sets off in the SDK client (its handlers'
 * promises, an answer to a request, a log fiber) runs after the slice, in the same turn, and is
 * not in `SLICE_MS`: this bounds it too.
 */
export const SLICE_LINES = 100

/** A line over this many bytes is decoded and parsed in a worker thread (`lineWorker.ts`). */
export const LARGE_LINE_BYTES = 1024 * 1024

/**
 * Most characters of an error answer's message kept (the bridge's calls and the SDK client's
 * alike). Past it the message is cut, saying so, while it is the flat string the parse made: a
 * 10 MB message joined into an error's text is copied whole by the first slice of it, and that
 * held the event loop for hundreds of milliseconds on a loaded machine.
 */
export const MAX_ERROR_MESSAGE_CHARS = 64 * 1024

/** What reading a server's stdout needs. */
export interface InboundOptions {
  readonly calls: DirectCalls
  readonly limits: ServerLimits
  /** The ids of the SDK client's requests waiting for an answer (an answer to one is taken out). */
  readonly awaited: Set<RequestId>
  /** Hands a message to the SDK client. */
  readonly deliver: (message: JSONRPCMessage) => void
  /** Reports a line that is not a JSON-RPC message (the next line is read). */
  readonly report: (error: unknown) => void
  /** Stops the server, saying why; nothing more is read after it. */
  readonly refuse: (why: string, kind: RefusalKind) => void
  /** Whether the server was refused (by this reader or otherwise). */
  readonly refused: () => boolean
  /** Stops the `data` events while a backlog is read. */
  readonly pause: () => void
  /** Lets them come again. */
  readonly resume: () => void
}

/** Whether `message` answers one of the SDK client's waiting requests (taken out if so). */
const answersAwaited = (message: unknown, awaited: Set<RequestId>): boolean => {
  if (typeof message !== "object" || message === null || "method" in message) return false
  const id: unknown = Reflect.get(message, "id")
  return (typeof id === "string" || typeof id === "number") && awaited.delete(id)
}

/** `value` checked with one of the SDK's spec schemas; throws, naming the first issues, when it does not pass. */
export const checkedAs = <I, A>(schema: StandardSchemaV1Sync<I, A>, value: unknown, what: string): A => {
  const result = schema["~standard"].validate(value)
  if (result.issues !== undefined) throw new Error(`not ${what}: ${issuesText(result.issues)}`)
  return result.value
}

/** The first issues a schema found, on one line. */
export const issuesText = (issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<unknown> | undefined }>): string =>
  issues.slice(0, 3).map((issue) => issue.path === undefined || issue.path.length === 0 ? issue.message : `${issue.path.map((p) => typeof p === "object" && p !== null && "key" in p ? String(p.key) : String(p)).join(".")}: ${issue.message}`).join("; ")

/**
 * `parsed` checked as the SDK's `JSONRPCMessage` schema checks it, against the one member of the
 * union it can match: the members are strict objects, told apart by their `method`, `id` and
 * `result` keys. The union tries the request member first, and building its failure for each
 * notification was most of the cost of reading a flood of them. Throws as the schema does.
 */
export const messageOf = (parsed: unknown): JSONRPCMessage => {
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return checkedAs(specTypeSchemas.JSONRPCMessage, parsed, "a JSON-RPC message")
  }
  if ("method" in parsed) {
    return "id" in parsed
      ? checkedAs(specTypeSchemas.JSONRPCRequest, parsed, "a JSON-RPC request")
      : checkedAs(specTypeSchemas.JSONRPCNotification, parsed, "a JSON-RPC notification")
  }
  return "result" in parsed
    ? checkedAs(specTypeSchemas.JSONRPCResultResponse, parsed, "a JSON-RPC response")
    : checkedAs(specTypeSchemas.JSONRPCErrorResponse, parsed, "a JSON-RPC error response")
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** Cuts the message of an error answer (`value`, as parsed) past `MAX_ERROR_MESSAGE_CHARS`. */
const cutErrorMessage = (value: unknown): void => {
  const error = isRecord(value) ? value.error : undefined
  if (!isRecord(error) || typeof error.message !== "string" || error.message.length <= MAX_ERROR_MESSAGE_CHARS) return
  const text = error.message
  error.message = `${text.slice(0, MAX_ERROR_MESSAGE_CHARS)}\n… [message cut at ${MAX_ERROR_MESSAGE_CHARS} of ${text.length} characters]`
}

/** How many lines `chunk` ends (its `\n` bytes). */
const lineEnds = (chunk: Buffer): number => {
  let count = 0
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) count += 1
  return count
}

/** The `data` listener of a server's stdout. */
export const makeInbound = (options: InboundOptions): (chunk: Buffer) => void => {
  const { awaited, calls, limits, refuse, refused, report } = options
  const lines = makeLineBuffer(MAX_MESSAGE_BYTES)
  const meter = makeRateMeter(limits.maxPushedPerSecond, limits.maxPushedBytesPerSecond)
  /** Whole lines come and not read yet. */
  let backlog = 0
  /** A slice waits for the next turn (stdout is paused until the backlog is read). */
  let scheduled = false
  let paused = false

  /** Counts a line of `size` bytes the server pushed; `false` (and the server refused) past a bound. */
  const admit = (size: number): boolean => {
    const over = meter.add(size)
    if (over === undefined) return true
    refuse(pushedTooMuch(over, limits), "hostile")
    return false
  }

  /** Takes a parsed line of `size` bytes: an answer of ours, or a message (or not) for the SDK client. */
  const take = (parsed: ParsedLine, size: number): void => {
    if (!parsed.ok) {
      if (admit(size)) report(parsed.error)
      return
    }
    cutErrorMessage(parsed.value)
    // an answer to one of the bridge's own calls, checked there
    if (calls.take(parsed.value)) return
    if (!answersAwaited(parsed.value, awaited) && !admit(size)) return
    // progress of one of the bridge's own calls (counted above as pushed, like any notification)
    if (calls.progress(parsed.value)) return
    let message: JSONRPCMessage
    try {
      message = messageOf(parsed.value)
    } catch (error) {
      // a line that is not a JSON-RPC message: reported, and the next line is read
      report(error)
      return
    }
    options.deliver(message)
  }

  /** Parses a line here. */
  const parse = (line: string): ParsedLine => {
    try {
      return { ok: true, value: JSON.parse(line) }
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error : new Error(String(error)) }
    }
  }

  /** Leaves what is left to the next turn, stdout paused until then. */
  const later = (): void => {
    scheduled = true
    if (!paused) {
      paused = true
      options.pause()
    }
    setImmediate(readSlice)
  }

  /** Parses a large line in a worker; reading goes on once it is taken. */
  const parseLarge = (line: Buffer): void => {
    scheduled = true
    if (!paused) {
      paused = true
      options.pause()
    }
    parseInWorker(line, MAX_ERROR_MESSAGE_CHARS, (parsed) => {
      if (refused()) return
      take(parsed, line.length)
      later()
    })
  }

  /** Reads lines for at most `SLICE_MS` and `SLICE_LINES`; what is left waits for the next turn. */
  const readSlice = (): void => {
    scheduled = false
    const end = performance.now() + SLICE_MS
    for (let read = 0;; read++) {
      if (refused()) return
      const size = lines.nextLength()
      if (size === undefined) break
      if (read >= SLICE_LINES || performance.now() >= end) return later()
      const bytes = lines.nextBytes()
      if (bytes === undefined) break
      backlog -= 1
      if (size > LARGE_LINE_BYTES) return parseLarge(bytes)
      take(parse(bytes.toString("utf8")), bytes.length)
    }
    if (paused) {
      paused = false
      options.resume()
    }
  }

  return (chunk) => {
    if (refused()) return
    if (!lines.append(chunk)) {
      // a message past the size cap: the connection is not usable any more
      return refuse(`it sent a message over ${MAX_MESSAGE_BYTES / 1024 / 1024} MB`, "broken")
    }
    backlog += lineEnds(chunk)
    // each request of ours still waiting may be answered by one of these lines: the rest are pushed
    if (meter.wouldPass(backlog - awaited.size - calls.waiting())) {
      return refuse(pushedTooMuch("messages", limits), "hostile")
    }
    if (!scheduled) readSlice()
  }
}
