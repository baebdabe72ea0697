/**
 * Runs a handler in its own fiber under a deadline and a memory cap, without the cost of
 * `Effect.timeout` or `Effect.provide`: the child fiber starts synchronously with the
 * caller's fiber refs and the caller's context merged with the tool's bound services; one
 * `setTimeout` interrupts it at the deadline, and the caller resumes only after the child's
 * finalizers have run. When the caller is interrupted, so is the child (and we wait for it).
 *
 * With neither a deadline nor a memory cap (a tool defined with `timeout: "none"`, or one that
 * keeps its own deadline, as an MCP proxy does) the handler still runs in a child fiber, with
 * no timer: running it on the caller's fiber under `Effect.mapInputContext` costs more (3–4 µs
 * a call here: `provideContext` sets and restores the context fiber ref in an uninterruptible
 * region, two copies of the fiber refs) than the fork.
 *
 * One case runs on the caller's fiber: no deadline, no cap, no span, and a tool that holds no
 * services of its own (`CallContext.onCaller`: an MCP proxy), so that nothing needs providing.
 *
 * A child that suspends is waited for through `Effect.onInterrupt`: an interruption of the
 * caller interrupts the child and waits for it, so the caller resumes once the child has
 * ended, its finalizers run. Only public APIs: the fiber's refs, context and flags as its
 * `RuntimeFiber` interface gives them, and no private runtime fields (a check in the test
 * suite keeps it so).
 *
 * The deadline follows the fiber's `Clock`: on the live clock it is a plain timer; under
 * another clock (`TestClock`) it is that clock's `sleep`, so `TestClock.adjust` times a tool out.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRefs from "effect/FiberRefs"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as RuntimeFlags from "effect/RuntimeFlags"
import type * as Tracer from "effect/Tracer"
import type { CallContext } from "./callContext.js"

/** The clock every fiber has unless a test (or the application) installs another. */
const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

/** Restores the caller's interruptibility around a wait (the identity when there is none to restore). */
export type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** How a guarded run may end early. */
export interface GuardOptions<E1, E2> {
  readonly timeoutMs: number | undefined
  readonly memoryLimitMb: number | undefined
  readonly onTimeout: () => E1
  readonly onMemoryLimit: () => E2
  /** How often the heap is sampled when a memory cap is set. Default 50 ms. */
  readonly sampleEveryMs?: number
}

/**
 * Runs `effect` (needing `R`; `withServices` completes the caller's context with it, under
 * `span` when one is given) in a child fiber, guarded by a deadline and a best-effort memory
 * cap (growth of the process heap while it runs, sampled). The caller waits for the child to
 * end, and an interruption of the caller interrupts the child first, unless the caller cannot be
 * interrupted. The executor runs a traced call in an uninterruptible region (so that its span
 * always ends): it passes whether its caller could be interrupted (`callerInterruptible`; by
 * default the current fiber's flags say), and the mask's `restore`, so that the wait stays as
 * interruptible as its caller; the identity otherwise.
 */
export const guard = <A, E, R, E1, E2>(
  effect: Effect.Effect<A, E, R>,
  withServices: CallContext<R>,
  span: Tracer.AnySpan | undefined,
  options: GuardOptions<E1, E2>,
  restore: Restore = identity,
  callerInterruptible?: boolean
): Effect.Effect<A, E | E1 | E2> => {
  const onCaller = onCallerOf(withServices, span, options)
  return onCaller !== undefined
    ? onCaller(effect)
    : Effect.withFiberRuntime<A, E | E1 | E2>((parent, status) => {
      const started = startGuarded(parent, status.runtimeFlags, effect, withServices, span, options)
      return Exit.isExit(started)
        ? started
        : waitGuarded(started, restore, callerInterruptible ?? RuntimeFlags.interruptible(status.runtimeFlags))
    })
}

/**
 * How `guard` runs a handler on the caller's fiber, when it does: with no deadline, no cap, no
 * span, and a tool that holds no services of its own (`CallContext.onCaller`); `undefined` when
 * the handler needs a fiber of its own.
 */
export const onCallerOf = <R>(
  withServices: CallContext<R>,
  span: Tracer.AnySpan | undefined,
  options: GuardOptions<unknown, unknown>
): (<A, E>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E>) | undefined =>
  span === undefined && options.timeoutMs === undefined && options.memoryLimitMb === undefined
    ? withServices.onCaller
    : undefined

/** A guarded handler still running after its first synchronous stretch (see `startGuarded`). */
export interface Running<A, E, E1, E2> {
  readonly child: Fiber.RuntimeFiber<A, E>
  readonly fiberRefs: FiberRefs.FiberRefs
  readonly runtimeFlags: RuntimeFlags.RuntimeFlags
  /** The heap before the handler started, for the memory cap. */
  readonly baseline: number
  readonly options: GuardOptions<E1, E2>
}

/**
 * Starts `effect` in a child fiber of `parent` (running with `flags`), as `guard` does, and
 * runs it as far as it goes synchronously: its exit when it ended there (most handlers do), the
 * running child otherwise, for `waitGuarded`. Called on `parent`'s own fiber. The executor
 * calls it directly when a call has no gate to pass, so that such a call costs no effect steps
 * of its own before its handler.
 */
export const startGuarded = <A, E, R, E1, E2>(
  parent: Fiber.RuntimeFiber<unknown, unknown>,
  flags: RuntimeFlags.RuntimeFlags,
  effect: Effect.Effect<A, E, R>,
  withServices: CallContext<R>,
  span: Tracer.AnySpan | undefined,
  options: GuardOptions<E1, E2>
): Exit.Exit<A, E> | Running<A, E, E1, E2> => {
  // the heap before the handler's first synchronous stretch, which runs inside `runFork`
  const baseline = options.memoryLimitMb === undefined ? 0 : process.memoryUsage().heapUsed
  const fiberRefs = parent.getFiberRefs()
  const runtimeFlags = RuntimeFlags.enable(flags, RuntimeFlags.Interruption)
  const child = Runtime.runFork(
    Runtime.make({ context: withServices(parent.currentContext, span), fiberRefs, runtimeFlags })
  )(effect)
  // its exit if it ended in that stretch, through `Fiber.poll` (public), run synchronously
  return Option.getOrUndefined(Effect.runSync(Fiber.poll(child))) ?? { child, fiberRefs, runtimeFlags, baseline, options }
}

/**
 * Waits for a child started by `startGuarded`, under its deadline and memory cap. A caller that
 * cannot be interrupted (`callerInterruptible` false) waits as it is, and its handler is not
 * interrupted either; otherwise an interruption of the caller interrupts the child and waits
 * for it (see above; `restore` gives back the caller's interruptibility where needed).
 */
export const waitGuarded = <A, E, E1, E2>(
  running: Running<A, E, E1, E2>,
  restore: Restore,
  callerInterruptible: boolean
): Effect.Effect<A, E | E1 | E2> => {
  const { baseline, child, fiberRefs, options, runtimeFlags } = running
  const { memoryLimitMb, timeoutMs } = options
  const wait = Effect.async<A, E | E1 | E2>((resume) => {
    let reason: "timeout" | "memory" | undefined
    const stop = (why: "timeout" | "memory") => {
      if (reason !== undefined) return
      reason = why
      child.unsafeInterruptAsFork(FiberId.none)
    }
    const clock = Context.get(FiberRefs.getOrDefault(fiberRefs, DefaultServices.currentServices), Clock.Clock)
    let timer: ReturnType<typeof setTimeout> | undefined
    let sleeper: Fiber.RuntimeFiber<void> | undefined
    // on the live clock a plain timer (its sleep would be one too, at a fiber's cost)
    if (timeoutMs !== undefined && clock === liveClock) timer = setTimeout(() => stop("timeout"), timeoutMs)
    else if (timeoutMs !== undefined) {
      sleeper = Runtime.runFork(Runtime.make({ context: Context.empty(), fiberRefs, runtimeFlags }))(
        Effect.zipRight(clock.sleep(Duration.millis(timeoutMs)), Effect.sync(() => stop("timeout")))
      )
    }
    let sampler: ReturnType<typeof setInterval> | undefined
    if (memoryLimitMb !== undefined) {
      const limit = memoryLimitMb * 1024 * 1024
      sampler = setInterval(() => {
        if (process.memoryUsage().heapUsed - baseline > limit) stop("memory")
      }, options.sampleEveryMs ?? 50)
    }
    child.addObserver((exit) => {
      if (timer !== undefined) clearTimeout(timer)
      if (sleeper !== undefined) sleeper.unsafeInterruptAsFork(FiberId.none)
      if (sampler !== undefined) clearInterval(sampler)
      if (reason !== undefined && Exit.isFailure(exit) && Exit.isInterrupted(exit)) {
        resume(Effect.fail(reason === "timeout" ? options.onTimeout() : options.onMemoryLimit()))
      } else {
        resume(exit)
      }
    })
  })
  // a caller that cannot be interrupted waits as it is, and its handler is not interrupted either
  if (!callerInterruptible) return wait
  return restore(Effect.onInterrupt(wait, () => Fiber.interrupt(child)))
}
