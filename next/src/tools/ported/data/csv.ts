/**
 * CSV for the data tools: the delimiter guessed from the first lines, a header row detected.
 * Records are parsed by `csv-parse` in a worker (`csvWorker.ts`: quoted fields, doubled quotes,
 * line breaks inside quotes, CRLF, a BOM), and written by `csv-stringify` in the conversion
 * worker (`convertWorker.ts`).
 *
 * @since 0.1.0
 */
/** The delimiters considered, in order of preference on a tie. */
export const DELIMITERS = [",", "\t", ";", "|"] as const
export type Delimiter = (typeof DELIMITERS)[number]

const DELIMITER_INDEX: ReadonlyMap<string, number> = new Map(DELIMITERS.map((d, i) => [d, i]))

/** What the delimiter guess looks at. */
const SAMPLE_CHARS = 64 * 1024
const SAMPLE_LINES = 10

/** A delimiter's name for messages. */
export const delimiterName = (d: Delimiter): string => (d === "\t" ? "tab" : `"${d}"`)

/**
 * The delimiter of `text`: the candidate that occurs the same number of times on each of the
 * first lines (quoted parts skipped), the most often; failing that, the most frequent one;
 * `fallback` when none occurs.
 */
export const guessDelimiter = (text: string, fallback: Delimiter = ","): Delimiter => {
  const counts = DELIMITERS.map(() => [0])
  let inQuotes = false
  let line = 0
  const end = Math.min(text.length, SAMPLE_CHARS)
  for (let i = 0; i < end && line < SAMPLE_LINES; i++) {
    const c = text[i]
    if (c === "\"") inQuotes = !inQuotes
    else if (!inQuotes && c === "\n") {
      line++
      if (i + 1 < end && line < SAMPLE_LINES) for (const row of counts) row.push(0)
    } else if (!inQuotes && c !== undefined) {
      const row = counts[DELIMITER_INDEX.get(c) ?? -1]
      if (row !== undefined) row[row.length - 1] = (row[row.length - 1] ?? 0) + 1
    }
  }
  // a line cut by the sample's end is not counted (unless it is the only one)
  const cut = end < text.length && line < SAMPLE_LINES
  let best: { readonly d: Delimiter; readonly consistent: boolean; readonly score: number } | undefined
  DELIMITERS.forEach((d, k) => {
    const all = counts[k] ?? []
    const row = cut && all.length > 1 ? all.slice(0, -1) : all
    const first = row[0] ?? 0
    const total = row.reduce((a, b) => a + b, 0)
    if (total === 0) return
    // (a row of zeros has no total, and was passed over above)
    const consistent = row.every((n) => n === first)
    const score = consistent ? first : total
    if (best === undefined || (consistent && !best.consistent) || (consistent === best.consistent && score > best.score)) {
      best = { d, consistent, score }
    }
  })
  return best?.d ?? fallback
}

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/

/**
 * Whether the first record is a header: every field non-empty, no two alike, none a number.
 * (A header of names is the common case; a first row with a number or an empty cell is data.)
 */
export const hasHeader = (records: ReadonlyArray<ReadonlyArray<string>>): boolean => {
  const first = records[0]
  if (first === undefined || first.length === 0) return false
  const names = first.map((f) => f.trim())
  return names.every((n) => n !== "" && !NUMBER.test(n)) && new Set(names).size === names.length
}

/** Column names: the header's, or 1, 2, 3... when there is none. */
export const columnNames = (
  records: ReadonlyArray<ReadonlyArray<string>>,
  header: boolean
): ReadonlyArray<string> => {
  const width = records.reduce((max, r) => Math.max(max, r.length), 0)
  const names = header ? (records[0] ?? []).map((f) => f.trim()) : []
  return Array.from({ length: width }, (_, i) => names[i] ?? String(i + 1))
}
