/**
 * What holds this thread's event loop open, for tests of what must (a call in progress) or must
 * not (an idle pool, a background start) keep a process alive.
 */

/** Timers that keep this thread's event loop alive (an unref'd timer is not counted). */
export const refTimers = (): number =>
  process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length

/** The fewest such timers seen over 10 turns of the event loop (a passing timer of other code is not counted). */
export const steadyRefTimers = async (): Promise<number> => {
  let fewest = refTimers()
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setImmediate(resolve))
    fewest = Math.min(fewest, refTimers())
  }
  return fewest
}
