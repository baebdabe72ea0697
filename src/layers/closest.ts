/**
 * Close names for "did you mean" hints.
 *
 * @since 0.1.0
 */

/**
 * The longest name compared (registered names have at most 64 characters). A longer name is
 * cut to this before any distance is computed: the edit distance costs the product of the two
 * lengths, and a 5 MB name made "did you mean" take 16–24 s.
 */
export const MAX_COMPARED_NAME = 128

const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/**
 * Up to `max` candidates within an edit distance of a third of the name (or containing it), best
 * first. A name longer than `MAX_COMPARED_NAME` is compared by its first `MAX_COMPARED_NAME`
 * characters.
 */
export const closest = (given: string, candidates: Iterable<string>, max = 3): ReadonlyArray<string> => {
  const name = given.slice(0, MAX_COMPARED_NAME)
  const limit = Math.max(2, Math.floor(name.length / 3))
  const scored: Array<[string, number]> = []
  for (const candidate of candidates) {
    const d = candidate.includes(name) || name.includes(candidate) ? 1 : distance(name, candidate)
    if (d <= limit) scored.push([candidate, d])
  }
  return scored.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).slice(0, max).map(([c]) => c)
}
