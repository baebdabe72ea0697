/**
 * The JSON-lines audit log: `write` puts the record on an unbounded queue (a synchronous
 * step: cheap, and atomic with the check that the log is still open); one background fiber
 * takes the records in batches (by count, or after a short interval), serializes them and
 * appends them to the file, rotating it by size. Closing the layer's scope stops the queue,
 * lets the fiber write what is left and closes the file: no record written before the close
 * is lost. The queue is unbounded: when the disk is slower than the calls, memory grows, the
 * calls do not wait, unless the log is `durable`: then each `write` waits until its record's
 * batch is appended (the writer takes what waits at once, no interval), so a process killed
 * right after answering a call has its record on disk.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import type { PlatformError } from "effect/PlatformError"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import { readableText } from "../domain/readableJson.js"
import type { AuditLogJsonlOptions, AuditLogService, AuditRecord } from "../services/AuditLog.js"
import { type AuditFileError, openAuditFile } from "./auditFile.js"

const defaults = { maxBytes: 10 * 1024 * 1024, maxFiles: 5, batchSize: 512, flushInterval: Duration.millis(50) }

/** Put on the queue by the finalizer, after the last record. */
const Stop: unique symbol = Symbol("effect-tool-system/AuditLog/Stop")
type Item = AuditRecord | typeof Stop

const isRecord = (item: Item): item is AuditRecord => item !== Stop

/** The open log file and the scope that closes it. */
interface OpenFile {
  readonly file: FileSystem.File
  readonly scope: Scope.Closeable
  /** Bytes in the file: its size when opened plus what was appended since. */
  size: number
}

/** A record as its line, and why it could not be read when it could not. */
interface Serialized {
  readonly line: string
  readonly unreadable?: string
}

/** Why a record could not be read, by means that cannot throw in turn. */
const reasonOf = (error: unknown): string => {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return "an error that cannot be shown"
  }
}

/**
 * One record as one line; its arguments only when `includeArguments`, as readable JSON (a
 * record written by hand may hold a bigint, a `Map`, a cycle: kept readable, never dropped).
 * A record that cannot be read at all (a getter that throws) becomes a line saying why, so
 * that it stops neither the writer nor the records after it.
 */
const serializer = (includeArguments: boolean) => (record: AuditRecord): Serialized => {
  try {
    const { arguments: args, ...rest } = record
    const shown = includeArguments && args !== undefined ? { ...rest, arguments: args } : rest
    return { line: readableText(shown) + "\n" }
  } catch (error) {
    const unreadable = reasonOf(error)
    return { line: readableText({ unreadableRecord: unreadable }) + "\n", unreadable }
  }
}

const encoder = new TextEncoder()

/** A line's length in UTF-8 (on the rare path that rotates the file); `undefined` encodes as nothing. */
const byteLength = (line: string | undefined): number => encoder.encode(line).length

/** The `AuditLog` service of `AuditLog.layerJsonl`, its writer fiber in the current scope. */
export const makeJsonl = (
  options: AuditLogJsonlOptions
): Effect.Effect<AuditLogService, never, Scope.Scope | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const file = (yield* Path.Path).resolve(options.file)
    const includeArguments = options.includeArguments === true
    const maxBytes = Math.max(1, options.maxBytes ?? defaults.maxBytes)
    const maxFiles = Math.max(0, Math.floor(options.maxFiles ?? defaults.maxFiles))
    const batchSize = Math.max(1, Math.floor(options.batchSize ?? defaults.batchSize))
    const durable = options.durable === true
    const flushInterval = durable ? Duration.zero : options.flushInterval ?? defaults.flushInterval
    /** A durable log's records still to be appended, each with what its `write` waits on. */
    const appended = new Map<AuditRecord, Deferred.Deferred<void>>()
    const release = (records: ReadonlyArray<AuditRecord>) => {
      for (const record of records) {
        const done = appended.get(record)
        if (done === undefined) continue
        appended.delete(record)
        Deferred.doneUnsafe(done, Exit.void)
      }
    }
    const serialize = serializer(includeArguments)

    const open: Effect.Effect<OpenFile, PlatformError | AuditFileError> = Effect.gen(function*() {
      const scope = yield* Scope.make()
      return yield* Effect.gen(function*() {
        const handle = yield* Scope.provide(openAuditFile(fs, file), scope)
        const info = yield* handle.stat
        return { file: handle, scope, size: Number(info.size) }
      }).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
    })

    const close = (current: OpenFile) =>
      current.file.sync.pipe(
        Effect.catch((error) => Effect.logWarning(`Audit log ${file}: fsync failed: ${error.message}`)),
        Effect.andThen(Scope.close(current.scope, Exit.void))
      )

    /** `FILE.(n-1)` → `FILE.n`, …, `FILE` → `FILE.1` (the oldest, `FILE.maxFiles`, is replaced). */
    const rotate = Effect.gen(function*() {
      if (maxFiles === 0) return yield* fs.remove(file)
      for (let i = maxFiles - 1; i >= 1; i--) {
        const from = `${file}.${i}`
        if (yield* fs.exists(from)) yield* fs.rename(from, `${file}.${i + 1}`)
      }
      yield* fs.rename(file, `${file}.1`)
    })

    /** Touched by the writer fiber only (and by the finalizer once that fiber is done). */
    let current: OpenFile | undefined = yield* open.pipe(
      Effect.catch((error) =>
        Effect.die(
          new Error(`Cannot open the audit log ${file}: ${error._tag === "AuditFileError" ? error.reason : error.message}`)
        )
      )
    )

    /** Appends the records, rotating between them as needed; on a failure, logs the unwritten ones. */
    const writeBatch = (records: ReadonlyArray<AuditRecord>) => {
      const serialized = records.map(serialize)
      const lines = serialized.map((one) => one.line)
      let written = 0
      return Effect.gen(function*() {
        for (const { unreadable } of serialized) {
          if (unreadable !== undefined) yield* Effect.logWarning(`Audit log ${file}: a record could not be read (${unreadable}); its line says so`)
        }
        while (written < lines.length) {
          let target = current ?? (yield* open)
          current = target
          // the usual case: the rest of the batch fits, one encoding, one write
          const rest = encoder.encode((written === 0 ? lines : lines.slice(written)).join(""))
          if (target.size + rest.length <= maxBytes) {
            yield* target.file.writeAll(rest)
            target.size += rest.length
            written = lines.length
            break
          }
          if (target.size > 0 && target.size + byteLength(lines[written]) > maxBytes) {
            current = undefined
            yield* close(target)
            yield* rotate
            target = yield* open
            current = target
          }
          // as many lines as fit in this file (at least one)
          let bytes = byteLength(lines[written])
          let end = written + 1
          while (end < lines.length && target.size + bytes + byteLength(lines[end]) <= maxBytes) {
            bytes += byteLength(lines[end])
            end++
          }
          const part = encoder.encode(lines.slice(written, end).join(""))
          yield* target.file.writeAll(part)
          target.size += part.length
          written = end
        }
      }).pipe(
        Effect.catchCause((cause) => {
          const lost = current
          current = undefined
          return Effect.andThen(
            lost === undefined ? Effect.void : Scope.close(lost.scope, Exit.void),
            Effect.logError(
              `Audit log ${file}: ${lines.length - written} records could not be written (${
                Cause.pretty(cause)
              }); they follow, one a line`,
              lines.slice(written).join("")
            )
          )
        })
      )
    }

    const queue = yield* Queue.unbounded<Item>()
    const queued = () => Queue.sizeUnsafe(queue)
    let closed = false
    /** Set while the writer waits to fill a batch: `done` when `need` more records wait, or on close. */
    let waiting: { readonly need: number; readonly done: Deferred.Deferred<void> } | undefined
    const wake = () => {
      if (waiting !== undefined) Deferred.doneUnsafe(waiting.done, Exit.void)
      waiting = undefined
    }

    /** Up to `max` items that already wait, without waiting for any (the writer is the only taker). */
    const takeWaiting = (max: number): Effect.Effect<ReadonlyArray<Item>> =>
      Effect.suspend(() => queued() > 0 ? Queue.takeBetween(queue, 1, max) : Effect.succeed([]))

    /** Up to `batchSize` items: at once when that many wait, else what came within `flushInterval`. */
    const takeBatch = Effect.gen(function*() {
      const first = yield* Queue.takeBetween(queue, 1, batchSize)
      const need = batchSize - first.length
      if (need === 0 || !first.every(isRecord)) return first
      if (!durable && !closed && queued() < need) {
        const done = yield* Deferred.make<void>()
        waiting = { need, done }
        // under a TestClock that does not move, only a full batch or the close end this wait
        yield* Effect.raceFirst(Effect.sleep(flushInterval), Deferred.await(done))
        waiting = undefined
      }
      return [...first, ...(yield* takeWaiting(need))]
    })

    const writer = Effect.gen(function*() {
      while (true) {
        const batch = yield* takeBatch
        const records = batch.filter(isRecord)
        if (records.length > 0) yield* writeBatch(records)
        // written, or logged as unwritten by writeBatch: either way nothing more will come of them
        release(records)
        if (records.length < batch.length) return
      }
    })

    yield* Effect.acquireRelease(
      // a daemon: the scope's interruption does not cut it off, the finalizer stops it; forked
      // interruptible (an acquire is not), so that the race of its wait can end the loser
      Effect.forkDetach(Effect.interruptible(writer)),
      (fiber) =>
        Effect.gen(function*() {
          yield* Effect.sync(() => {
            closed = true
            Queue.offerUnsafe(queue, Stop)
            wake()
          })
          const exit = yield* Fiber.await(fiber)
          if (Exit.isFailure(exit)) yield* Effect.logError(`Audit log ${file}: the writer stopped`, exit.cause)
          // a writer that stopped early leaves no `write` waiting forever
          release([...appended.keys()])
          if (current !== undefined) yield* close(current)
          current = undefined
          yield* Queue.shutdown(queue)
        })
    )

    return {
      enabled: true,
      includeArguments,
      write: (record) =>
        Effect.suspend(() => {
          if (closed) {
            return Effect.logError(`Audit log ${file} is closed: the record of a call of ${record.tool} is dropped`)
          }
          if (durable) {
            // one entry per write, even when a caller writes the same record object twice
            const entry = appended.has(record) ? { ...record } : record
            const done = Deferred.makeUnsafe<void>()
            appended.set(entry, done)
            Queue.offerUnsafe(queue, entry)
            return Deferred.await(done)
          }
          Queue.offerUnsafe(queue, record)
          if (waiting !== undefined && queued() >= waiting.need) wake()
          return Effect.void
        })
    } satisfies AuditLogService
  })
