/**
 * What `snapshotStore.test.ts` and `snapshotStore.slow.test.ts` share: a snapshot store in a
 * workspace, written by hand, and its listing.
 */
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { call } from "../editing/harness.js"

/** Files of the workspace `ws` and of its snapshot store (`.snapshots`), written by hand. */
export const snapshotStoreIn = (ws: string) => {
  const at = (rel: string) => Path.join(ws, rel)
  return {
    at,
    put: (rel: string, content: string | Uint8Array) => {
      Fs.mkdirSync(Path.dirname(at(rel)), { recursive: true })
      Fs.writeFileSync(at(rel), content)
    },
    /** An empty store. */
    emptyStore: () => {
      Fs.rmSync(at(".snapshots"), { recursive: true, force: true })
      Fs.mkdirSync(at(".snapshots"))
    },
    /** Writes a snapshot by hand: its metadata and its bytes. */
    forge: (id: string, meta: Record<string, unknown>, content = "forged") => {
      Fs.writeFileSync(
        at(`.snapshots/${id}.json`),
        JSON.stringify({ version: 1, id, source: "src/f.txt", created_at: "2020-01-01T00:00:00.000Z", mode: 420, size: Buffer.byteLength(content), ...meta })
      )
      Fs.writeFileSync(at(`.snapshots/${id}.snap`), content)
    }
  }
}

/** The listing of list_snapshots (its output, or its error). */
export const list = (args: Record<string, unknown> = {}) => Effect.map(call("list_snapshots", args), (r) => r.output ?? r.error)
