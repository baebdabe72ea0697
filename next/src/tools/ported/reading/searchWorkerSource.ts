/**
 * The code of a `search_files` worker thread (`searchWorkers.ts` starts it), and what it is
 * told and answers.
 *
 * A worker is given jobs: some regular files of one directory that the main thread holds open,
 * named through that directory's descriptor (`/proc/PID/fd/N/name`, the process's descriptors
 * being the threads' too). For each file it does what `searchSmallSync` begins with: opens it
 * without following a link and without blocking, reads its first block, closes it, and applies
 * the matcher's `Prefilter` to a file that fits in that block. It answers, per file:
 *
 * - `NONE`: no first match, so no matching line (the file's bytes stay in the worker);
 * - `FOUND`: a first match; its bytes are sent back, and the main thread finds the lines and
 *   judges binary content exactly as for a file it read itself;
 * - `AGAIN`: anything else (larger than one block, an error, a directory swapped in): the main
 *   thread searches that file itself, as if there were no worker.
 *
 * So a worker decides nothing but "this file has no first match", with the same test as the
 * main thread (`searchMatch.ts`): a literal by `Buffer.indexOf` or by the escaped literal's
 * expression, a regular expression by re2js only (a model's expression never reaches V8's
 * backtracking engine). It is a CommonJS script run from source (`eval`), as
 * `shared/scriptWorker.ts` does: no file of its own has to sit beside a bundle.
 *
 * @since 0.1.0
 */
import type { MessagePort } from "node:worker_threads"
import type { Prefilter } from "./searchMatch.js"

/** A file without a first match. */
export const NONE = 0
/** A file with a first match: its bytes are in the answer. */
export const FOUND = 1
/** A file the main thread searches itself. */
export const AGAIN = 2

/** What a worker starts with (it serves search after search). */
export interface WorkerStart {
  /** Its end of the channel jobs and answers go through. */
  readonly port: MessagePort
  /** The absolute path of re2js's CommonJS entry (loaded for a `re2` prefilter only). */
  readonly re2Module: string
  /** The flags files are opened with (`READ_FLAGS`). */
  readonly openFlags: number
  /** The directory of the process's descriptors (`fdDir()`: `/proc/PID/fd/`), with its trailing `/`. */
  readonly fdDir: string
}

/** What a search tells a worker before its first job: the jobs after it are answered with this test. */
export interface WorkerSetup {
  readonly setup: true
  readonly prefilter: Prefilter
  /** Bytes read of each file; a file that fills them is answered `AGAIN`. */
  readonly blockBytes: number
}

/** A job: files of one open directory. */
export interface WorkerJob {
  readonly id: number
  /** The directory's descriptor path with a trailing `/` (`{fdDir}N/`; anything else is answered `AGAIN`). */
  readonly prefix: string
  /** The files' names, each followed by a NUL (which no name holds): one string is copied faster than many. */
  readonly names: string
}

/** A worker's answer to a job. */
export interface WorkerAnswer {
  readonly id: number
  /** Per file: `NONE`, `FOUND` or `AGAIN`. */
  readonly codes: Uint8Array
  /** The bytes of the `FOUND` files, one after the other. */
  readonly data: Uint8Array
  /** Where each `FOUND` file's bytes end in `data`, in file order. */
  readonly ends: Uint32Array
}

/** Whether a message from a worker is an answer. */
export const isWorkerAnswer = (message: unknown): message is WorkerAnswer =>
  typeof message === "object" && message !== null && "id" in message && typeof message.id === "number" &&
  "codes" in message && message.codes instanceof Uint8Array &&
  "data" in message && message.data instanceof Uint8Array &&
  "ends" in message && message.ends instanceof Uint32Array

/** The worker's code. */
export const WORKER_SOURCE = `"use strict"
const fs = require("node:fs")
const { workerData } = require("node:worker_threads")
const { port, re2Module, openFlags, fdDir } = workerData
const NONE = ${NONE}, FOUND = ${FOUND}, AGAIN = ${AGAIN}
const decoder = new TextDecoder("utf-8")
let buffer = Buffer.alloc(0)
let blockBytes = 0
/** The search's first test; none before a setup (every file is then answered AGAIN). */
let firstMatch
const matcherOf = (prefilter) => {
  if (prefilter.kind === "bytes") {
    const needle = Buffer.from(prefilter.needle)
    return (bytes) => bytes.indexOf(needle) !== -1
  }
  if (prefilter.kind === "literal") {
    const re = new RegExp(prefilter.source, prefilter.flags)
    return (bytes) => {
      re.lastIndex = 0
      return re.exec(decoder.decode(bytes)) !== null
    }
  }
  const { RE2JS } = require(re2Module)
  const re = RE2JS.compile(prefilter.pattern, prefilter.flags)
  return (bytes) => re.matcher(decoder.decode(bytes)).find(0)
}
const searchOne = (path, found) => {
  let fd
  try {
    fd = fs.openSync(path, openFlags)
  } catch {
    return AGAIN
  }
  let code = AGAIN
  try {
    const n = fs.readSync(fd, buffer, 0, blockBytes, 0)
    if (n < blockBytes && firstMatch(buffer.subarray(0, n))) {
      found.push(Buffer.from(buffer.subarray(0, n)))
      code = FOUND
    } else if (n < blockBytes) code = NONE
  } catch {
    code = AGAIN
  }
  try {
    fs.closeSync(fd)
  } catch {
    if (code === FOUND) found.pop()
    code = AGAIN
  }
  return code
}
// files are named through a directory's descriptor, never by a path that a swapped link could redirect
const bound = (prefix) => {
  const fd = prefix.slice(fdDir.length, -1)
  return fdDir.startsWith("/proc/") && fdDir.endsWith("/fd/") && prefix.startsWith(fdDir) && prefix.endsWith("/") &&
    fd.length > 0 && [...fd].every((c) => c >= "0" && c <= "9")
}
port.on("message", (message) => {
  if (message.setup === true) {
    // dropped first: a test that fails to compile leaves none, never the last search's
    firstMatch = undefined
    blockBytes = message.blockBytes
    if (buffer.length < blockBytes) buffer = Buffer.allocUnsafe(blockBytes)
    firstMatch = matcherOf(message.prefilter)
    return
  }
  const { id, prefix, names: joined } = message
  const names = joined.split("\\0")
  names.pop()
  const codes = new Uint8Array(names.length)
  const found = []
  if (firstMatch !== undefined && bound(prefix)) for (let i = 0; i < names.length; i++) codes[i] = searchOne(prefix + names[i], found)
  else codes.fill(AGAIN)
  const ends = new Uint32Array(found.length)
  let total = 0
  for (let i = 0; i < found.length; i++) ends[i] = total += found[i].length
  const data = new Uint8Array(total)
  for (let i = 0, at = 0; i < found.length; at = ends[i], i++) data.set(found[i], at)
  port.postMessage({ id, codes, data, ends }, [codes.buffer, data.buffer, ends.buffer])
})
`
