/**
 * How the PDF worker pool sizes itself: how many idle workers it keeps, how long, and how many
 * documents a worker parses before it is replaced.
 *
 * @since 0.1.0
 */

/** Idle workers kept warm (per memory limit). */
export const MAX_IDLE = 2
/** An idle worker is ended after this long. */
export const IDLE_MS = 30_000
/** A worker is retired after this many documents, so that leaks cannot pile up. */
export const MAX_USES = 200

/**
 * How the pool sizes itself; the defaults are the constants above.
 *
 * @since 0.1.0
 * @category models
 */
export interface PdfPoolOptions {
  /** Idle workers kept warm (per memory limit). Default `MAX_IDLE`. */
  readonly maxIdle: number
  /** An idle worker is ended after this many milliseconds. Default `IDLE_MS`. */
  readonly idleMs: number
  /** A worker is retired after this many documents. Default `MAX_USES`. */
  readonly maxUses: number
}

/** The default sizes. */
export const DEFAULT_PDF_POOL_OPTIONS: PdfPoolOptions = { maxIdle: MAX_IDLE, idleMs: IDLE_MS, maxUses: MAX_USES }
