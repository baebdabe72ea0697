/**
 * The sandbox worker (a `worker_threads` Worker started by the pool). It loads one QuickJS
 * WebAssembly module over a capped `WebAssembly.Memory`, says `ready`, then runs each request
 * in a fresh runtime and posts the outcome. The host terminates the worker at the deadline, so
 * nothing the guest does (native work the interrupt handler cannot stop) outlives its call.
 *
 * @since 0.1.0
 */
import { parentPort, workerData } from "node:worker_threads"
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from "quickjs-emscripten"
import {
  type RunRequest,
  WASM_INITIAL_PAGES,
  WASM_MAXIMUM_PAGES,
  WASM_RECYCLE_ABOVE_BYTES,
  type WorkerMessage
} from "./protocol.js"
import { runGuest } from "./runGuest.js"
import { printThrough } from "./workerPrint.js"

// what this worker prints (an Emscripten message) goes to the host's debug log, never its stdout
printThrough(typeof workerData === "object" && workerData !== null ? Reflect.get(workerData, "output") : undefined)

const isRunRequest = (message: unknown): message is RunRequest =>
  typeof message === "object" && message !== null &&
  "id" in message && typeof message.id === "number" &&
  "code" in message && typeof message.code === "string" &&
  "timeoutMs" in message && typeof message.timeoutMs === "number"

/** The part of `WebAssembly.Memory` used here (the project's `lib` carries no WebAssembly types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer
}
type WasmMemoryConstructor = new (descriptor: { initial: number; maximum: number }) => WasmMemory
const isConstructor = (value: unknown): value is WasmMemoryConstructor => typeof value === "function"

/** A WebAssembly memory that cannot grow past `maximum` pages. */
const cappedMemory = (initial: number, maximum: number): WasmMemory => {
  const namespace: unknown = Reflect.get(globalThis, "WebAssembly")
  const Memory: unknown = typeof namespace === "object" && namespace !== null
    ? Reflect.get(namespace, "Memory")
    : undefined
  if (!isConstructor(Memory)) throw new Error("WebAssembly.Memory is not available")
  return new Memory({ initial, maximum })
}

const port = parentPort
if (port === null) throw new Error("the sandbox worker must run in a worker thread")

const memory = cappedMemory(WASM_INITIAL_PAGES, WASM_MAXIMUM_PAGES)
/** What the module prints to stderr (an aborted assertion, say), reported with the next reply. */
const diagnostics: Array<string> = []
const emscriptenModule = {
  wasmMemory: memory,
  printErr: (text: string) => {
    if (diagnostics.length < 20) diagnostics.push(text.slice(0, 1000))
  }
}
const quickjs = await newQuickJSWASMModuleFromVariant(
  newVariant(RELEASE_SYNC, { wasmMemory: memory, emscriptenModule })
)

port.on("message", (message: unknown) => {
  if (!isRunRequest(message)) return
  const { disposeFailure, outcome } = runGuest(quickjs, message.code, message.timeoutMs)
  const reply: WorkerMessage = {
    type: "done",
    id: message.id,
    outcome,
    recycle: disposeFailure !== undefined || outcome.kind === "crash" || memory.buffer.byteLength > WASM_RECYCLE_ABOVE_BYTES,
    diagnostics: disposeFailure === undefined
      ? diagnostics.splice(0)
      : [...diagnostics.splice(0), `disposing the runtime failed: ${disposeFailure}`]
  }
  port.postMessage(reply)
})

const ready: WorkerMessage = { type: "ready" }
port.postMessage(ready)
