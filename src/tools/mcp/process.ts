/**
 * A stdio MCP server as a child process owned by a scope, and the SDK `Transport` that
 * speaks to it.
 *
 * The process runs in a process group of its own and is ended as a group. It gets only the
 * configured variables plus the SDK's short safe list, never our whole environment. Ending
 * it (`stop`, or the scope closing) closes its stdin, waits a grace period, then sends
 * SIGTERM to the group, then SIGKILL: every process it started ends, even one that ignores
 * SIGTERM. Its stderr is drained into a short tail, kept for the messages that say why it
 * stopped.
 *
 * The pipes are Node's streams, used directly: the messages of a call cross them twice, and
 * Effect streams over the same pipes (`@effect/platform`'s `Command`) cost a few hundred
 * microseconds more per call, more than a call to a local server takes (see bench/mcp.ts).
 *
 * The bridge's own `tools/call` requests (`directCalls.ts`) go out on the same pipes, and the
 * answers to them are taken before the SDK client sees a message (`inbound.ts` reads stdout).
 *
 * A server is held to bounds (`serverLimits.ts`), whatever it pushes at us: what waits to be
 * written to it (`outbound.ts`: the answers to its own requests pile up there when it does not
 * read), what it sends per second besides the answers to our requests, and the size of one
 * message (`inbound.ts`). Past one, it is refused: the stop is logged with the reason, nothing
 * more it sends is read, the connection closes at once (the calls in flight fail, naming the
 * reason: `stoppedFor`), and the process is stopped. Reading its stdout is not paused while its
 * stdin is full: a server that writes synchronously would then wait for us as we wait for it.
 * Its stderr is read into a short tail whatever its rate: that costs no parsing and little
 * memory.
 *
 * Effect 4: the bridge's live clock is `Clock.Clock`'s default (a real-timer `Clock`), provided
 * with `Effect.provideService`; the refusal's log and stop run with `Effect.runForkWith` on the
 * starting fiber's context (Effect 4 has no `Runtime`). Spawning stays on `node:child_process`, as
 * in the main tree, for the reason above.
 *
 * @since 0.1.0
 */
import type { Transport } from "@modelcontextprotocol/client"
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type ChildProcess, spawn } from "node:child_process"
import { oneLineTail } from "../shared/sanitize.js"
import type { McpStdioServerConfig } from "./config.js"
import { type DirectCalls, makeDirectCalls } from "./directCalls.js"
import { makeInbound } from "./inbound.js"
import { makeOutbound } from "./outbound.js"
import { DEFAULT_SERVER_LIMITS, type RefusalKind, type ServerLimits } from "./serverLimits.js"

/** How much of a server's stderr is kept for messages. */
const STDERR_TAIL_CHARS = 2048
/** How much of its end a message shows (what a server says last is what matters). */
const STDERR_SHOWN_CHARS = 500

/** A server process could not be started. */
export class SpawnFailed extends Data.TaggedError("SpawnFailed")<{
  readonly command: string
  /** The system's reason, e.g. `spawn foo ENOENT`. */
  readonly reason: string
}> {
  override get message(): string {
    return `cannot start "${this.command}": ${this.reason}`
  }
}

/** A running server process. */
export interface ServerProcess {
  readonly pid: number
  /** The SDK transport over its stdin and stdout; `start` begins reading. */
  readonly transport: Transport
  /** `tools/call` requests beside the SDK client, on the same pipes (see `directCalls.ts`). */
  readonly calls: DirectCalls
  /** Completes when the process has ended, with how (`exited with code 1`, ...). */
  readonly exited: Effect.Effect<string>
  /** Whether it closed its stdout before anyone asked it to stop (it exited or crashed by itself). */
  readonly endedOnItsOwn: () => boolean
  /** The last lines of its stderr, on one line (empty when it wrote none). */
  readonly stderrTail: () => string
  /** Why we stopped it, when it broke the protocol or a bound (a message past the size cap, a flood). */
  readonly stoppedFor: () => string | undefined
  /** Whether it was stopped past the queue or push bounds (a flood, a stdin it does not read): not to be restarted. */
  readonly hostile: () => boolean
  /** Ends the process and the processes it started (idempotent). */
  readonly stop: Effect.Effect<void>
}

/** The bridge's own timers run on the real clock, whatever clock the caller's fiber has. */
export const liveClock: Clock.Clock = Clock.Clock.defaultValue()

/**
 * Waits at most `timeout` for `effect`. The wait stays interruptible where it is used: in a
 * finalizer, which runs uninterruptibly, a timeout could not stop it otherwise.
 */
const waitFor = <A>(effect: Effect.Effect<A>, timeout: Duration.Input) =>
  Effect.timeoutOption(Effect.interruptible(effect), timeout).pipe(Effect.provideService(Clock.Clock, liveClock))

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Spawns the process; succeeds once it runs, fails on `error` (a missing command: ENOENT).
 * `onExit` is attached at once, so no exit can be missed.
 */
const spawnServer = (
  config: McpStdioServerConfig,
  onExit: (code: number | null, signal: NodeJS.Signals | null) => void
): Effect.Effect<ChildProcess, SpawnFailed> =>
  Effect.callback<ChildProcess, SpawnFailed>((resume) => {
    let child: ChildProcess
    try {
      child = spawn(config.command, [...(config.args ?? [])], {
        env: { ...getDefaultEnvironment(), ...config.env },
        cwd: config.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        // its own process group, so that it ends with every process it started
        detached: process.platform !== "win32",
        windowsHide: true
      })
    } catch (error) {
      resume(Effect.fail(new SpawnFailed({ command: config.command, reason: errorText(error) })))
      return
    }
    const onError = (error: Error) => {
      child.off("spawn", onSpawn)
      resume(Effect.fail(new SpawnFailed({ command: config.command, reason: error.message })))
    }
    const onSpawn = () => {
      child.off("error", onError)
      resume(Effect.succeed(child))
    }
    child.once("error", onError)
    child.once("spawn", onSpawn)
    child.once("exit", onExit)
  })

/** Sends a signal to the process's group (or, where there are none, to the process). */
const signal = (child: ChildProcess, name: NodeJS.Signals) => {
  try {
    if (process.platform !== "win32" && child.pid !== undefined) process.kill(-child.pid, name)
    else child.kill(name)
  } catch {
    // the group is gone already: nothing left to signal
  }
}

/** Options of a server process. */
export interface ServerProcessOptions {
  readonly stopGrace: Duration.Input
  /** The server's name, for the log. */
  readonly server?: string | undefined
  /** Default: `DEFAULT_SERVER_LIMITS`. */
  readonly limits?: ServerLimits | undefined
}

/**
 * Starts a server in the current scope (closing the scope ends it). Fails with
 * `SpawnFailed` when it cannot be started.
 */
export const startServerProcess = (
  config: McpStdioServerConfig,
  options: ServerProcessOptions
): Effect.Effect<ServerProcess, SpawnFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const exitedDeferred = yield* Deferred.make<string>()
    let open = true
    let stopRequested = false
    let endedOnItsOwn = false
    let tail = ""
    // more came than the tail keeps
    let tailCut = false
    let stoppedFor: string | undefined
    let hostile = false

    const exited = Deferred.await(exitedDeferred)
    const stopWith = (child: ChildProcess): Effect.Effect<void> =>
      Effect.gen(function*() {
        open = false
        stopRequested = true
        child.stdin?.end()
        if (!(yield* Deferred.isDone(exitedDeferred)) && (yield* waitFor(exited, options.stopGrace))._tag === "None") {
          signal(child, "SIGTERM")
          if ((yield* waitFor(exited, options.stopGrace))._tag === "None") {
            signal(child, "SIGKILL")
            yield* waitFor(exited, options.stopGrace)
          }
        }
        // what it started and left behind in its group ends too
        signal(child, "SIGTERM")
      })

    const onExit = (code: number | null, name: NodeJS.Signals | null) =>
      Deferred.doneUnsafe(
        exitedDeferred,
        Effect.succeed(code === null ? `ended by a signal (${name ?? "unknown"})` : `exited with code ${code}`)
      )
    const child = yield* Effect.acquireRelease(spawnServer(config, onExit), stopWith)
    const pid = child.pid ?? 0
    const stop = Effect.uninterruptible(stopWith(child))
    const limits = options.limits ?? DEFAULT_SERVER_LIMITS
    const name = options.server ?? config.command
    let closedOnce = false
    /**
     * Refuses the server: it broke a bound. Nothing more it sends is read or written to, the
     * stop is logged, the connection closes (after the current turn: this may run inside the
     * SDK client's own `send`), and the process is stopped.
     */
    const refuse = (why: string, kind: RefusalKind) => {
      if (stoppedFor !== undefined || closedOnce) return
      stoppedFor = `it was stopped: ${why}`
      hostile = kind === "hostile"
      open = false
      stopRequested = true
      child.stdout?.destroy()
      child.stderr?.destroy()
      report(new Error(stoppedFor))
      queueMicrotask(closed)
      Effect.runForkWith(context)(
        Effect.andThen(Effect.logWarning(`MCP server "${name}" (pid ${pid}) is stopped: ${why}`), stop)
      )
    }
    const decoder = new TextDecoder()
    child.stderr?.on("data", (chunk: Buffer) => {
      const more = tail + decoder.decode(chunk, { stream: true })
      tailCut ||= more.length > STDERR_TAIL_CHARS
      tail = more.slice(-STDERR_TAIL_CHARS)
    })

    /** The server's stdin, while messages can go to it. */
    const writable = () => {
      const stdin = child.stdin
      return open && stdin !== null && !stdin.destroyed ? stdin : undefined
    }
    const outbound = makeOutbound({ writable, limits, refuse, stoppedFor: () => stoppedFor })
    // `pid` and `stderr` mark it stdio-shaped for SDK v2's version probe (`protocol: "auto"`): a
    // probe that gets no answer then means a 2025-era server, not an outage
    const transport: Transport & { readonly pid: number; readonly stderr: null } = {
      pid,
      stderr: null,
      start: () => {
        // stdout stays paused (buffered) until the client is ready to read
        child.stdout?.on("data", onData)
        child.stdout?.once("close", closed)
        return Promise.resolve()
      },
      send: outbound.send,
      close: () => Effect.runPromiseWith(context)(stop)
    }
    const calls = makeDirectCalls(outbound.write)
    const report = (error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error)))
    // runs once: when stdout closes, or when the server is refused, whichever comes first
    const closed = () => {
      if (closedOnce) return
      closedOnce = true
      open = false
      outbound.awaited.clear()
      endedOnItsOwn = !stopRequested
      transport.onclose?.()
      calls.closed()
    }
    const onData = makeInbound({
      calls,
      limits,
      awaited: outbound.awaited,
      deliver: (message) => transport.onmessage?.(message),
      report,
      refuse,
      refused: () => stoppedFor !== undefined,
      pause: () => child.stdout?.pause(),
      resume: () => child.stdout?.resume()
    })
    child.stdin?.on("error", report)
    child.stdout?.on("error", report)

    return {
      pid,
      transport,
      calls,
      exited,
      endedOnItsOwn: () => endedOnItsOwn,
      stderrTail: () => oneLineTail(tail, STDERR_SHOWN_CHARS, { truncated: tailCut }),
      stoppedFor: () => stoppedFor,
      hostile: () => hostile,
      stop
    }
  })
