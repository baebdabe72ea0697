/**
 * The tools that report progress (`reportProgress`, heard through `ExecuteOptions.onProgress`):
 * `download_file` the bytes saved of the declared length (none declared when the body is
 * encoded), `hash_file` the bytes hashed of the file's size, `search_files` the files searched
 * so far. Each result is what it is without a listener.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Zlib from "node:zlib"
import { type ProgressListener, type ProgressUpdate, ToolSystem, Workspace } from "../../../src/index.js"
import { hashFile } from "../../../src/tools/ported/data/hashFile.js"
import { searchFiles } from "../../../src/tools/ported/reading/searchFiles.js"
import { downloadFile } from "../../../src/tools/ported/web/downloadFile.js"
import { testServer } from "../../helpers/httpServer.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { until } from "../../helpers/testClock.js"
import { callTool } from "./web/support.js"

/** A listener that keeps what it hears. */
const recorder = () => {
  const heard: Array<ProgressUpdate> = []
  return { heard, onProgress: (update: ProgressUpdate) => Effect.sync(() => void heard.push(update)) }
}

const MiB = 1024 * 1024

describe("download_file's progress", () => {
  // live clock: a real HTTP server on 127.0.0.1, whose body comes in two halves 150 ms apart
  it.live("the bytes saved of the declared length, as they come; the last is the whole", () =>
    Effect.gen(function*() {
      const ws = makeTempDirSync("progress-download-")
      const half = Buffer.alloc(200_000, 7)
      const server = yield* testServer((_, response) => {
        response.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(half.length * 2) })
        response.write(half)
        setTimeout(() => response.end(half), 150)
      })
      const { heard, onProgress } = recorder()
      const result = yield* callTool({ dir: ws, tools: [downloadFile] }, "download_file", {
        url: `${server.origin}/data.bin`,
        filepath: "data.bin"
      }, { onProgress })
      expect(result.success).toBe(true)
      yield* until(() => heard.at(-1)?.progress === 400_000, `the last update (heard ${JSON.stringify(heard)})`)
      // one update before the second half came, and the whole at the end
      expect(heard.length).toBeGreaterThanOrEqual(2)
      expect(heard[0]?.progress).toBeLessThan(400_000)
      expect(heard.at(-1)).toEqual({ progress: 400_000, total: 400_000, message: "400000 bytes of 400000 bytes downloaded" })
      for (const update of heard) expect(update.total).toBe(400_000)
      expect(Fs.statSync(Path.join(ws, "data.bin")).size).toBe(400_000)
    }))

  it.live("an encoded body (its length is not the file's): bytes saved, no total", () =>
    Effect.gen(function*() {
      const ws = makeTempDirSync("progress-download-")
      const gzipped = Zlib.gzipSync(Buffer.alloc(100_000, 65))
      const server = yield* testServer((_, response) => {
        response.writeHead(200, { "content-encoding": "gzip", "content-length": String(gzipped.length) })
        response.end(gzipped)
      })
      const { heard, onProgress } = recorder()
      const result = yield* callTool({ dir: ws, tools: [downloadFile] }, "download_file", {
        url: `${server.origin}/a.txt`,
        filepath: "a.txt"
      }, { onProgress })
      expect(result.success).toBe(true)
      yield* until(() => heard.at(-1)?.progress === 100_000, `the last update (heard ${JSON.stringify(heard)})`)
      for (const update of heard) expect(update).not.toHaveProperty("total")
      expect(heard.at(-1)?.message).toBe("100000 bytes downloaded")
    }))

  it.live("a body of no declared length (sent chunked): bytes saved, no total", () =>
    Effect.gen(function*() {
      const ws = makeTempDirSync("progress-download-")
      const server = yield* testServer((_, response) => {
        response.writeHead(200, { "content-type": "application/octet-stream" })
        response.write(Buffer.alloc(1000, 1))
        response.end(Buffer.alloc(2000, 2))
      })
      const { heard, onProgress } = recorder()
      const result = yield* callTool({ dir: ws, tools: [downloadFile] }, "download_file", {
        url: `${server.origin}/chunked.bin`,
        filepath: "chunked.bin"
      }, { onProgress })
      expect(result.success).toBe(true)
      yield* until(() => heard.at(-1)?.progress === 3000, `the last update (heard ${JSON.stringify(heard)})`)
      for (const update of heard) expect(update).not.toHaveProperty("total")
      expect(heard.at(-1)?.message).toBe("3000 bytes downloaded")
    }))
})

const systemOf = (ws: string) => ToolSystem.layerNode({ builtins: false, tools: [hashFile, searchFiles], workspace: Workspace.layerFixed(ws) })

const exec = (ws: string, name: string, args: unknown, onProgress?: ProgressListener) =>
  Effect.flatMap(ToolSystem, (tools) => tools.execute(name, args, onProgress === undefined ? {} : { onProgress })).pipe(
    Effect.provide(systemOf(ws))
  )

describe("hash_file's progress", () => {
  it.effect("the bytes hashed of the file's size; the last is the whole, and the digest is unchanged", () =>
    Effect.gen(function*() {
      const ws = makeTempDirSync("progress-hash-")
      const size = 3 * MiB + 123
      Fs.writeFileSync(Path.join(ws, "big.bin"), Buffer.alloc(size, 3))
      const { heard, onProgress } = recorder()
      const heardResult = yield* exec(ws, "hash_file", { filepath: "big.bin" }, onProgress)
      const quietResult = yield* exec(ws, "hash_file", { filepath: "big.bin" })
      expect(heardResult.success && quietResult.success && heardResult.output === quietResult.output).toBe(true)
      yield* until(() => heard.at(-1)?.progress === size, `the last update (heard ${JSON.stringify(heard)})`)
      expect(heard.at(-1)).toEqual({ progress: size, total: size })
      for (const update of heard) expect(update.total).toBe(size)
    }))
})

describe("search_files' progress", () => {
  it.effect("the files searched so far, one report a directory; the last is every file", () =>
    Effect.gen(function*() {
      const ws = makeTempDirSync("progress-search-")
      for (const dir of ["a", "b", "b/c"]) {
        Fs.mkdirSync(Path.join(ws, dir), { recursive: true })
        for (let i = 0; i < 5; i++) Fs.writeFileSync(Path.join(ws, dir, `f${i}.txt`), `line ${i}\nneedle in ${dir}\n`)
      }
      const { heard, onProgress } = recorder()
      const result = yield* exec(ws, "search_files", { pattern: "needle" }, onProgress)
      expect(result.success).toBe(true)
      expect(result.success ? String(result.output).split("\n").filter((l) => l.includes("needle")) : []).toHaveLength(15)
      yield* until(() => heard.at(-1)?.progress === 15, `the last update (heard ${JSON.stringify(heard)})`)
      expect(heard.at(-1)).toEqual({ progress: 15, message: "15 files searched" })
    }))
})
