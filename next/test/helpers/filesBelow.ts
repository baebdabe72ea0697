/**
 * What is below a directory, as one value to compare: each entry relative and sorted, a
 * directory as `name/`, a file as `name: content` (a temp file left behind shows here).
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

export const filesBelow = (dir: string): ReadonlyArray<string> =>
  Fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort().map((rel) => {
    const path = Path.join(dir, rel)
    return Fs.lstatSync(path).isDirectory() ? `${rel}/` : `${rel}: ${Fs.readFileSync(path, "utf8")}`
  })
