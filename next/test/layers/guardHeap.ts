/**
 * Memory for the memory-cap tests of `guard` (`guard.test.ts`, `guard.slow.test.ts`): arrays
 * of a known size on the JavaScript heap, kept while referenced.
 */

/** At least `mb` MB on the JavaScript heap (8 bytes or more an element), kept while referenced. */
export const allocate = (mb: number): Array<number> => new Array<number>(mb * 131_072).fill(1.5)

/**
 * At least `mb` MB in arrays of 64 MB: one array past V8's longest fast array (about 32 M
 * elements) is a slow dictionary (320 MB in one array took 23 s here).
 */
export const allocateChunked = (mb: number): ReadonlyArray<Array<number>> => Array.from({ length: Math.ceil(mb / 64) }, () => allocate(64))

/**
 * MB that show as growth however much garbage the collector takes back meanwhile (earlier tests'
 * garbage, when test files share a process): more than the heap in use now, and 48 MB beyond.
 */
export const beyondGarbage = (atLeastMb: number): number =>
  Math.max(atLeastMb, Math.ceil(process.memoryUsage().heapUsed / 1_048_576) + 48)
