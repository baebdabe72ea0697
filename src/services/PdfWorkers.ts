/**
 * The `PdfWorkers` service: its interface, its tag and its layers.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "effect/FileSystem"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { WorkerRequest, WorkerResponse } from "../tools/builtin/pdf/protocol.js"
import type { PdfPoolOptions } from "../layers/pdfPoolOptions.js"
import { makePdfWorkerPool, type PdfWorkerError, type PoolStats, type PooledWorker } from "../layers/PdfWorkers.js"

export type { PdfPoolOptions } from "../layers/pdfPoolOptions.js"
export type { PoolStats as PdfWorkerStats } from "../layers/PdfWorkers.js"

/**
 * The `PdfWorkers` service interface.
 *
 * @since 0.1.0
 * @category services
 */
export interface PdfWorkersService {
  /** Borrows a worker whose heap is capped at `limitMb` for the scope (warm, or started now). */
  readonly borrow: (limitMb: number) => Effect.Effect<PooledWorker, PdfWorkerError, Scope.Scope>
  /** One request to a borrowed worker; interrupting it terminates the worker. */
  readonly request: (worker: PooledWorker, message: WorkerRequest) => Effect.Effect<WorkerResponse, PdfWorkerError>
  /** Counters, for tests and diagnostics. */
  readonly stats: Effect.Effect<PoolStats>
}

/**
 * The warm, memory-capped worker threads `read_pdf` parses in. A service so
 * that its workers live exactly as long as the layer that made them.
 *
 * @since 0.1.0
 * @category services
 */
export class PdfWorkers extends Context.Service<PdfWorkers, PdfWorkersService>()("effect-tool-system/PdfWorkers") {
  /** A pool owned by the layer's scope; no worker starts before the first request. */
  static readonly layer: Layer.Layer<PdfWorkers, never, FileSystem.FileSystem> = Layer.effect(
    PdfWorkers,
    makePdfWorkerPool()
  )

  /** `layer` with other sizes or idle time. */
  static readonly layerWith = (options: Partial<PdfPoolOptions>): Layer.Layer<PdfWorkers, never, FileSystem.FileSystem> =>
    Layer.effect(PdfWorkers, makePdfWorkerPool(options))
}
