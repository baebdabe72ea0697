/**
 * The output side of `search_files` (`searchTree.ts`): the files of the walk in chunks, in walk
 * order; each file's outcome filled in whenever it is known (the main thread, a worker's answer,
 * a stream), and the lines put out file by file, in order, as soon as everything before them
 * is known, up to the limit. Files past the limit are neither put out nor counted, so the notes
 * are the same however the work was shared.
 *
 * @since 0.1.0
 */
import * as NodePath from "node:path"
import type { OpenDirectory } from "../../shared/safeFs.js"
import type { ScanEntry } from "../../shared/safeFsScan.js"
import { shownName } from "./common.js"
import { type Outcome, searchWhole as searchWholeFile } from "./searchFile.js"
import type { Hit, Matcher } from "./searchMatch.js"

/** A regular file (or a link to one) the walk met. */
export type FileEntry = Extract<ScanEntry, { _tag: "File" }>

/** A directory held open for workers' jobs: while its visit lasts and until each of its jobs is answered. */
export interface Held {
  readonly dir: OpenDirectory
  /** The visit, and each job out. */
  users: number
}

/** Consecutive files of one directory, in name order. */
export interface Chunk {
  /** The directory's real path. */
  readonly dirPath: string
  /** The directory as the lines show it. */
  readonly shown: string
  readonly files: ReadonlyArray<FileEntry>
  readonly outcomes: Array<Outcome | undefined>
  /** Files to stream (links, large files), not yet started. */
  readonly streams: Array<number>
  /** The directory held for the chunk's job while it is out. */
  held: Held | undefined
  /** Files already put out. */
  done: number
}

/** A new chunk of `files` of the directory at `dirPath`. */
export const makeChunk = (dirPath: string, shown: string, files: ReadonlyArray<FileEntry>): Chunk => ({
  dirPath,
  shown,
  files,
  outcomes: new Array(files.length),
  streams: [],
  held: undefined,
  done: 0
})


/** A file without a matching line. */
export const noHits: Outcome = { _tag: "Searched", hits: [], partial: false }

/**
 * The outcome of a whole file held in `bytes` (shorter than a block): its matching lines, or
 * `Binary`, judged as `searchSmallSync` judges such a file.
 */
export const searchWhole = (bytes: Buffer, matcher: Matcher, limit: number): Outcome =>
  searchWholeFile(bytes, false, matcher, limit)

/** The chunks of a search in walk order, and what has been put out of them. */
export interface SearchOutput {
  /** `path:line: text`, at most `limit`. */
  readonly lines: ReadonlyArray<string>
  /** Files put out that could not be read. */
  readonly unreadable: () => number
  /** Files put out that were searched only in part. */
  readonly partial: () => number
  /** Adds the next chunk of the walk. */
  readonly add: (chunk: Chunk) => void
  /** Puts out what can be; true once `limit` lines are out. */
  readonly flush: () => boolean
  /** The chunks not yet put out whole. */
  readonly waiting: () => Iterable<Chunk>
}

/** An empty output for at most `limit` lines. */
export const makeOutput = (limit: number): SearchOutput => {
  const lines: Array<string> = []
  // the chunks in walk order; those before `head` are put out and let go
  const chunks: Array<Chunk | undefined> = []
  let head = 0
  let unreadable = 0
  let partial = 0
  const flush = (): boolean => {
    for (let chunk = chunks[head]; chunk !== undefined && lines.length < limit; chunk = chunks[head]) {
      while (chunk.done < chunk.files.length && lines.length < limit) {
        const outcome = chunk.outcomes[chunk.done]
        if (outcome === undefined) break
        const name = chunk.files[chunk.done]?.name ?? ""
        chunk.done++
        if (outcome._tag === "Unreadable") unreadable += outcome.error.reason === "NotFound" ? 0 : 1
        else if (outcome._tag === "Searched") {
          if (outcome.partial) partial++
          // a file without hits puts out nothing: this skips building its name
          if (outcome.hits.length === 0) continue
          const shown = shownName(NodePath.join(chunk.shown, name))
          for (const hit of outcome.hits) {
            if (lines.length >= limit) break
            lines.push(`${shown}:${hit.line}: ${hit.text}`)
          }
        }
      }
      if (chunk.done < chunk.files.length) break
      // lets the chunk be collected; nothing shown depends on it
      chunks[head++] = undefined
    }
    return lines.length >= limit
  }
  return {
    lines,
    unreadable: () => unreadable,
    partial: () => partial,
    add: (chunk) => {
      chunks.push(chunk)
    },
    flush,
    waiting: function*() {
      for (let i = head; i < chunks.length; i++) {
        const chunk = chunks[i]
        if (chunk !== undefined) yield chunk
      }
    }
  }
}
