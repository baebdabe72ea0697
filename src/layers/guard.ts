/**
 * Runs a handler under a deadline and a memory cap without the cost of `Effect.timeout`:
 * the handler runs in a child fiber started synchronously with the caller's context and
 * fiber refs; one `setTimeout` interrupts it at the deadline, and the caller resumes only
 * after the child's finalizers have run. When the caller is interrupted, so is the child.
 *
 * @since 0.1.0
 */
import { Effect, Exit, Fiber, FiberId, Runtime, RuntimeFlags } from "effect"

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
 * Guards `effect` with a deadline and a best-effort memory cap (growth of the process heap
 * while it runs, sampled). With neither set, it runs the effect as it is.
 */
export const guard = <A, E, E1, E2>(
  effect: Effect.Effect<A, E>,
  options: GuardOptions<E1, E2>
): Effect.Effect<A, E | E1 | E2> => {
  const { memoryLimitMb, timeoutMs } = options
  if (timeoutMs === undefined && memoryLimitMb === undefined) return effect
  return Effect.flatMap(Effect.runtime<never>(), (parent) => {
    const runtime = Runtime.make({
      context: parent.context,
      fiberRefs: parent.fiberRefs,
      runtimeFlags: RuntimeFlags.enable(parent.runtimeFlags, RuntimeFlags.Interruption)
    })
    const child = Runtime.runFork(runtime)(effect)
    const done = child.unsafePoll()
    if (done !== null) return done
    return Effect.async<A, E | E1 | E2>((resume) => {
      let reason: "timeout" | "memory" | undefined
      const stop = (why: "timeout" | "memory") => {
        if (reason !== undefined) return
        reason = why
        child.unsafeInterruptAsFork(FiberId.none)
      }
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => stop("timeout"), timeoutMs)
      let sampler: ReturnType<typeof setInterval> | undefined
      if (memoryLimitMb !== undefined) {
        const baseline = process.memoryUsage().heapUsed
        const limit = memoryLimitMb * 1024 * 1024
        sampler = setInterval(() => {
          if (process.memoryUsage().heapUsed - baseline > limit) stop("memory")
        }, options.sampleEveryMs ?? 50)
      }
      child.addObserver((exit) => {
        if (timer !== undefined) clearTimeout(timer)
        if (sampler !== undefined) clearInterval(sampler)
        if (reason !== undefined && Exit.isFailure(exit) && Exit.isInterrupted(exit)) {
          resume(Effect.fail(reason === "timeout" ? options.onTimeout() : options.onMemoryLimit()))
        } else {
          resume(exit)
        }
      })
      return Effect.suspend(() => {
        if (timer !== undefined) clearTimeout(timer)
        if (sampler !== undefined) clearInterval(sampler)
        return Fiber.interrupt(child)
      })
    })
  })
}
