/**
 * One guest run inside the worker: a fresh QuickJS runtime and context, the prelude, the
 * user's code, its promise jobs, and the last value turned into JSON text inside the guest.
 *
 * Limits: `setMemoryLimit`, `setMaxStackSize`, and an interrupt handler that stops the guest at
 * its deadline. The interrupt is not a wall-clock limit (long native work is not interrupted)
 * and `executePendingJobs` reports success even when a job was interrupted, so the deadline is
 * also checked here after every step, and the host terminates the whole worker at the deadline.
 *
 * Nothing of the host is handed to the guest except `write(line)` (console output); values leave
 * the guest only through `vm.dump` of strings the prelude built.
 *
 * @since 0.1.0
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten"
import { PRELUDE_SOURCE } from "./prelude.js"
import {
  GUEST_MEMORY_LIMIT_BYTES,
  GUEST_STACK_BYTES,
  type Outcome,
  RESULT_MAX_CHARS,
  STDOUT_MAX_CHARS
} from "./protocol.js"

/** The outcome of a run, and whether the worker that ran it should be replaced. */
export interface GuestRun {
  readonly outcome: Outcome
  /** Set when disposing the runtime failed: the module may have leaked memory. */
  readonly disposeFailure: string | undefined
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** `console` output, capped at `max` characters. */
class Output {
  private text = ""
  private dropped = 0
  constructor(private readonly max: number) {}
  /** Appends a line; `true` once the output is full. */
  append(line: string): boolean {
    if (this.dropped > 0) {
      this.dropped += line.length + 1
      return true
    }
    const room = this.max - this.text.length
    const withNewline = `${line}\n`
    if (withNewline.length <= room) {
      this.text += withNewline
      return false
    }
    this.text += withNewline.slice(0, room)
    this.dropped = withNewline.length - room
    return true
  }
  toString(): string {
    return this.dropped === 0
      ? this.text
      : `${this.text}\n... (output truncated: ${this.dropped} more characters after the first ${this.max})`
  }
}

/** The handles a run owns; disposed in reverse order before the context. */
class Handles {
  private readonly owned: Array<QuickJSHandle> = []
  own<H extends QuickJSHandle>(handle: H): H {
    this.owned.push(handle)
    return handle
  }
  dispose(): void {
    for (const handle of this.owned.reverse()) if (handle.alive) handle.dispose()
  }
}

interface Step {
  readonly vm: QuickJSContext
  readonly runtime: QuickJSRuntime
  readonly handles: Handles
  readonly output: Output
  readonly expired: () => boolean
  /** Host-side failures inside host functions the guest called (the worker is replaced). */
  readonly faults: Array<string>
}

/** The prelude's helpers, taken before the user's code runs. */
interface Helpers {
  readonly serialize: QuickJSHandle
  readonly describe: QuickJSHandle
}

const installPrelude = (step: Step): Helpers => {
  const { handles, output, vm } = step
  const write = handles.own(vm.newFunction("write", (line) => {
    try {
      if (vm.typeof(line) !== "string") return vm.false
      const text = vm.dump(line)
      return output.append(typeof text === "string" ? text : "") ? vm.true : vm.false
    } catch (error) {
      // Host error messages never reach the guest: it sees a fixed message.
      step.faults.push(`console output failed: ${messageOf(error)}`)
      return { error: vm.newError({ name: "Error", message: "console output failed" }) }
    }
  }))
  const prelude = vm.evalCode(PRELUDE_SOURCE, "prelude.js", { type: "global", strict: true })
  if (prelude.error) {
    handles.own(prelude.error)
    throw new Error("the sandbox prelude failed to evaluate")
  }
  const install = handles.own(prelude.value)
  const installed = vm.callFunction(
    install,
    vm.undefined,
    write,
    handles.own(vm.newNumber(STDOUT_MAX_CHARS)),
    handles.own(vm.newNumber(RESULT_MAX_CHARS))
  )
  if (installed.error) {
    handles.own(installed.error)
    throw new Error("the sandbox prelude failed to install")
  }
  const helpers = handles.own(installed.value)
  return { serialize: handles.own(vm.getProp(helpers, "serialize")), describe: handles.own(vm.getProp(helpers, "describe")) }
}

const OUT_OF_MEMORY = /^InternalError: out of memory/

/** Share of the heap limit in use from which a failure counts as running out of memory. */
const NEAR_LIMIT = 0.9

/**
 * Whether the guest heap is (nearly) exhausted. QuickJS does not always throw its
 * "out of memory" error: when even that error cannot be allocated, the guest sees `null`.
 * When measuring fails too, memory is exhausted.
 */
const nearMemoryLimit = (step: Step): boolean => {
  try {
    const usage: unknown = step.vm.dump(step.handles.own(step.runtime.computeMemoryUsage()))
    const used = typeof usage === "object" && usage !== null && "memory_used_size" in usage ? usage.memory_used_size : undefined
    return typeof used !== "number" || used >= GUEST_MEMORY_LIMIT_BYTES * NEAR_LIMIT
  } catch {
    return true
  }
}

/** Turns a thrown guest value into an outcome (timeout and out-of-memory recognised). */
const failure = (step: Step, helpers: Helpers, thrown: QuickJSHandle, prefix = ""): Outcome => {
  const stdout = step.output.toString()
  if (step.expired()) return { kind: "timeout", stdout }
  const described = step.vm.callFunction(helpers.describe, step.vm.undefined, thrown)
  let message = "an exception that could not be described"
  if (described.error) {
    step.handles.own(described.error)
    if (step.expired()) return { kind: "timeout", stdout }
  } else {
    const text = step.vm.dump(step.handles.own(described.value))
    if (typeof text === "string") message = text
  }
  if (OUT_OF_MEMORY.test(message) || nearMemoryLimit(step)) return { kind: "memory", stdout }
  return { kind: "error", stdout, message: `${prefix}${message}` }
}

/** Runs promise jobs until none is left; a failure outcome when one cannot be run to the end. */
const drainJobs = (step: Step, helpers: Helpers): Outcome | undefined => {
  for (;;) {
    if (step.expired()) return { kind: "timeout", stdout: step.output.toString() }
    const ran = step.runtime.executePendingJobs(256)
    if (ran.error) return failure(step, helpers, step.handles.own(ran.error))
    if (ran.value === 0) return undefined
  }
}

const evaluate = (step: Step, code: string): Outcome => {
  const { handles, output, vm } = step
  const helpers = installPrelude(step)
  // The deadline applies from here: the prelude (ours, short) is never interrupted.
  step.runtime.setInterruptHandler(step.expired)
  const evaluated = vm.evalCode(code, "sandbox.js", { type: "global" })
  if (evaluated.error) return failure(step, helpers, handles.own(evaluated.error))
  const value = handles.own(evaluated.value)
  const drained = drainJobs(step, helpers)
  if (drained !== undefined) return drained

  const state = vm.getPromiseState(value)
  if (state.type === "pending") {
    return {
      kind: "error",
      stdout: output.toString(),
      message: "the last value is a Promise that never settled (the sandbox has no timers and no I/O)"
    }
  }
  if (state.type === "rejected") return failure(step, helpers, handles.own(state.error), "the Promise rejected: ")
  const settled = state.notAPromise === true ? value : handles.own(state.value)

  const serialized = vm.callFunction(helpers.serialize, vm.undefined, settled)
  if (serialized.error) {
    return failure(step, helpers, handles.own(serialized.error), "the last value could not be turned into JSON: ")
  }
  const json = vm.dump(handles.own(serialized.value))
  if (step.expired()) return { kind: "timeout", stdout: output.toString() }
  return { kind: "ok", stdout: output.toString(), result: typeof json === "string" ? json : null }
}

const attempt = (f: () => void): string | undefined => {
  try {
    f()
    return undefined
  } catch (error) {
    return messageOf(error)
  }
}

/** Evaluates `code` in a fresh runtime of `quickjs` with a deadline of `timeoutMs`. */
export const runGuest = (quickjs: QuickJSWASMModule, code: string, timeoutMs: number): GuestRun => {
  const deadline = Date.now() + timeoutMs
  const expired = () => Date.now() > deadline
  const output = new Output(STDOUT_MAX_CHARS)
  let outcome: Outcome = { kind: "crash", message: "the sandbox did not run" }
  // A context with its own runtime: disposing the context disposes the runtime.
  const vm = quickjs.newContext()
  const runtime = vm.runtime
  const handles = new Handles()
  const faults: Array<string> = []
  try {
    runtime.setMemoryLimit(GUEST_MEMORY_LIMIT_BYTES)
    runtime.setMaxStackSize(GUEST_STACK_BYTES)
    outcome = evaluate({ vm, runtime, handles, output, expired, faults }, code)
    if (faults.length > 0) outcome = { kind: "crash", message: faults.join("; ") }
  } catch (error) {
    outcome = { kind: "crash", message: messageOf(error) }
  }
  const disposeFailure = attempt(() => handles.dispose()) ?? attempt(() => vm.dispose())
  return { outcome, disposeFailure }
}
