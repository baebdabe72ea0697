/**
 * How both pools (the sandbox's and the PDF parser's) start their Workers, and what becomes of
 * what the Workers print (the host side; `workerPrint.ts` is the Worker's).
 *
 * - Clean Node flags (`execArgv: []`): a host started with `node --input-type=module -e ...`,
 *   `--eval`, `--print` or `--inspect` can still start Workers (by default they inherit the
 *   host's flags, and a Worker started from a file refuses `--input-type`).
 * - Captured stdio (`stdout: true, stderr: true`): nothing a Worker prints reaches the host's
 *   stdout (the CLI's stdout is exactly one JSON object).
 * - The Worker sends what it prints through a port of its own (`outputPort`), and the host logs
 *   it a line at a time at debug level, with the pool owner's logger: pdf.js's start-up
 *   warnings, an Emscripten message. Not through the captured streams: reading those refs the
 *   Worker's internal port until it exits, so an idle pool would keep the process alive; the
 *   port here is unref'd.
 *
 * @since 0.1.0
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { MessageChannel, type MessagePort, type WorkerOptions } from "node:worker_threads"
import { isPrinted, type PrintedStream } from "./workerPrint.js"

/** The longest line logged; the rest of a longer line is dropped (with a note). */
export const WORKER_LINE_MAX_CHARS = 2000

/** The Worker options both pools start with: no inherited Node flags, stdout and stderr captured. */
export const workerIsolation = (): Pick<WorkerOptions, "execArgv" | "stdout" | "stderr"> => ({
  execArgv: [],
  stdout: true,
  stderr: true
})

const cut = (line: string): string =>
  line.length <= WORKER_LINE_MAX_CHARS
    ? line
    : `${line.slice(0, WORKER_LINE_MAX_CHARS)}... (${line.length - WORKER_LINE_MAX_CHARS} more characters)`

/** Splits text that arrives in pieces into lines; an unterminated line longer than the cap is let out. */
const lineSplitter = () => {
  let pending = ""
  return (text: string): ReadonlyArray<string> => {
    const lines = (pending + text).split("\n")
    pending = lines.pop() ?? ""
    if (pending.length > WORKER_LINE_MAX_CHARS) {
      lines.push(pending)
      pending = ""
    }
    return lines.map((line) => cut(line.replace(/\r$/, "")))
  }
}

/**
 * A port for one Worker to print through (hand it over in `workerData` and `transferList`; the
 * Worker calls `printThrough` with it). What arrives is logged at debug level through `context`
 * (the pool owner's, so its logger and minimum level apply), annotated with `worker` (`name`)
 * and `stream`. The host's end is unref'd: it never keeps the process alive. `context` is the
 * owner's (`Effect.context<never>()`): its loggers and minimum log level apply.
 */
export const outputPort = (name: string, context: Context.Context<never>): MessagePort => {
  const { port1, port2 } = new MessageChannel()
  const run = Effect.runForkWith(context)
  const splitters: Record<PrintedStream, (text: string) => ReadonlyArray<string>> = {
    stdout: lineSplitter(),
    stderr: lineSplitter()
  }
  port1.on("message", (message: unknown) => {
    if (!isPrinted(message)) return
    const lines = splitters[message.stream](message.text)
    if (lines.length === 0) return
    run(
      Effect.forEach(lines, (line) => Effect.logDebug(line), { discard: true }).pipe(
        Effect.annotateLogs({ worker: name, stream: message.stream })
      )
    )
  })
  // after the listener: adding a 'message' listener refs a port again
  port1.unref()
  return port2
}
