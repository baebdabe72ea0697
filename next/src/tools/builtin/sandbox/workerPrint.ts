/**
 * The Worker's side of `workerOutput.ts`: what the Worker prints (`console`, `process.stdout`,
 * `process.stderr`, Node's warnings) goes to the host through the port it was given, instead of
 * into the Worker's stdio. Used by both the sandbox worker and the PDF worker, so it imports
 * only `node:` builtins.
 *
 * @since 0.1.0
 */
import { MessagePort } from "node:worker_threads"

/** Which stream the text was written to. */
export type PrintedStream = "stdout" | "stderr"

/** What the Worker sends for each write. */
export interface Printed {
  readonly stream: PrintedStream
  readonly text: string
}

/** Whether a message is a `Printed`. */
export const isPrinted = (message: unknown): message is Printed =>
  typeof message === "object" && message !== null &&
  "stream" in message && (message.stream === "stdout" || message.stream === "stderr") &&
  "text" in message && typeof message.text === "string"

const textOf = (chunk: unknown): string =>
  typeof chunk === "string" ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString("utf8") : String(chunk)

/**
 * Sends every later write to `process.stdout` and `process.stderr` (where `console` writes)
 * through `port`. Does nothing when `port` is not a `MessagePort` (the output then stays in the
 * Worker's captured stdio).
 */
export const printThrough = (port: unknown): void => {
  if (!(port instanceof MessagePort)) return
  for (const stream of ["stdout", "stderr"] as const) {
    Object.defineProperty(process[stream], "write", {
      configurable: true,
      writable: true,
      value: (chunk: unknown, ...rest: ReadonlyArray<unknown>): boolean => {
        const printed: Printed = { stream, text: textOf(chunk) }
        port.postMessage(printed)
        const done = rest.find((arg) => typeof arg === "function")
        if (typeof done === "function") queueMicrotask(() => done())
        return true
      }
    })
  }
}
