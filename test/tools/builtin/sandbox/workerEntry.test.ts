/**
 * Where the sandbox worker's script is when the library runs from its sources: the tsx entry
 * beside the module (the compiled package's `worker.js` is seen in `workerHosts.slow.test.ts`).
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { workerEntry } from "../../../../src/tools/builtin/sandbox/workerEntry.js"

describe("the sandbox worker's entry from the sources", () => {
  it("is tsWorker.mjs beside the module, a file that exists", () => {
    const entry = workerEntry()
    expect(entry.href).toBe(new URL("../../../../src/tools/builtin/sandbox/tsWorker.mjs", import.meta.url).href)
    expect(existsSync(fileURLToPath(entry))).toBe(true)
    expect(existsSync(fileURLToPath(new URL("../../../../src/tools/builtin/sandbox/worker.js", import.meta.url)))).toBe(false)
  })
})
