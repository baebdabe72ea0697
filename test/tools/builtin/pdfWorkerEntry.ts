/**
 * The PDF worker's entry made ready before a test file's tests, in its `beforeAll`. From the
 * sources, the first PDF worker of a process loads TypeScript and transpiles `pdfWorker.ts`
 * (`workerScript.ts`): about 1.3 s of CPU, once per process. Without this, that cost falls on
 * whichever test starts the process's first worker, which in the fast lane (files sharing a
 * process) depends on the order the files ran in.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect } from "effect"
import { workerEntry } from "../../../src/tools/builtin/pdf/workerScript.js"

/** Computes the process's PDF worker entry (kept for the process: later calls cost nothing). */
export const prepareWorkerEntry = (): Promise<void> =>
  Effect.runPromise(Effect.asVoid(workerEntry.pipe(Effect.provide(NodeServices.layer))))
