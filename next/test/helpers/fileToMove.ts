/**
 * The usual start of a move test: a temp workspace (removed with the scope) holding `a.txt`
 * ("payload"), and `b.txt` beside it as the destination, not yet there.
 */
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { tempDir } from "./tempDir.js"

export const fileToMove = (prefix: string) =>
  Effect.map(tempDir(prefix), (root) => {
    const source = Path.join(root, "a.txt")
    Fs.writeFileSync(source, "payload")
    return { root, source, destination: Path.join(root, "b.txt") }
  })
