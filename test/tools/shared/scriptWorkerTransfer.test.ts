/**
 * `runScriptWorker`'s `transfer` (`scriptWorker.test.ts` covers the rest): a buffer named there
 * is moved to the worker, not copied (the host's buffer is left empty, the worker reads its
 * bytes); a buffer not named there is copied and stays the host's.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runScriptWorker } from "../../../src/tools/shared/scriptWorker.js"

/** Answers the bytes of the buffer it was given, as numbers. */
const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads")
parentPort.postMessage(Array.from(new Uint8Array(workerData.buffer)))
`

const bufferOf = (...bytes: ReadonlyArray<number>) => new Uint8Array(bytes).buffer

describe("runScriptWorker with transfer", () => {
  it.live("a buffer in transfer is moved to the worker: the worker reads its bytes, the host's buffer is left empty", () =>
    Effect.gen(function*() {
      const buffer = bufferOf(1, 2, 3, 250)
      const answer = yield* runScriptWorker(SCRIPT, { buffer }, { deadline: "20 seconds", heapMb: 16, what: "the job", transfer: [buffer] })
      expect(answer).toEqual([1, 2, 3, 250])
      expect(buffer.byteLength).toBe(0)
    }))

  it.live("without transfer the buffer is copied: the worker reads the same bytes, the host keeps them", () =>
    Effect.gen(function*() {
      const buffer = bufferOf(1, 2, 3, 250)
      const answer = yield* runScriptWorker(SCRIPT, { buffer }, { deadline: "20 seconds", heapMb: 16, what: "the job" })
      expect(answer).toEqual([1, 2, 3, 250])
      expect(Array.from(new Uint8Array(buffer))).toEqual([1, 2, 3, 250])
    }))
})
