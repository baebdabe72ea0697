/**
 * The contract between the host-side pool and the sandbox worker: the limits both sides
 * share and the messages they exchange. Only plain data crosses the thread boundary.
 *
 * @since 0.1.0
 */

/** Heap limit of one guest runtime (`runtime.setMemoryLimit`). */
export const GUEST_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024

/** WebAssembly page size. */
const PAGE = 64 * 1024

/** Initial size of the worker's WebAssembly memory (the QuickJS build needs 16 MiB). */
export const WASM_INITIAL_PAGES = (16 * 1024 * 1024) / PAGE

/**
 * Hard cap of the worker's WebAssembly memory. `setMemoryLimit` alone does not hold
 * (allocations the runtime does not count grew a process past 2 GB); a memory that cannot
 * grow past this makes every allocation beyond it fail inside the guest.
 */
export const WASM_MAXIMUM_PAGES = (128 * 1024 * 1024) / PAGE

/** A worker whose WebAssembly memory grew past this is replaced after the call, to give it back. */
export const WASM_RECYCLE_ABOVE_BYTES = 32 * 1024 * 1024

/** Guest stack limit (`runtime.setMaxStackSize`): deep recursion is a catchable error. */
export const GUEST_STACK_BYTES = 256 * 1024

/** The most characters of `console` output kept per call. */
export const STDOUT_MAX_CHARS = 64 * 1024

/** The most characters of the last value's JSON kept per call. */
export const RESULT_MAX_CHARS = 64 * 1024

/** A run request: evaluate `code` with a guest deadline of `timeoutMs`. */
export interface RunRequest {
  readonly id: number
  readonly code: string
  readonly timeoutMs: number
}

/**
 * How a guest run ended. `stdout` is what `console` printed, already capped.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | {
    readonly kind: "ok"
    readonly stdout: string
    /** The last value as JSON text (capped), or `null` when it has no JSON form (`undefined`, a function). */
    readonly result: string | null
  }
  /** The guest threw (or its last value, a promise, rejected); `message` describes what it threw. */
  | { readonly kind: "error"; readonly stdout: string; readonly message: string }
  /** The guest ran past its deadline. */
  | { readonly kind: "timeout"; readonly stdout: string }
  /** The guest ran out of memory. */
  | { readonly kind: "memory"; readonly stdout: string }
  /** The sandbox itself failed (not the guest's code): the worker is replaced. */
  | { readonly kind: "crash"; readonly message: string }

/** What the worker posts. */
export type WorkerMessage =
  | { readonly type: "ready" }
  | {
    readonly type: "done"
    readonly id: number
    readonly outcome: Outcome
    /** The worker should not be reused (its memory grew, or disposing the runtime failed). */
    readonly recycle: boolean
    /** What the QuickJS module printed to stderr during the call (e.g. a failed assertion), for the host's log. */
    readonly diagnostics: ReadonlyArray<string>
  }
