/**
 * `scan` with more than one tree covered: the start and a directory outside it that a link led
 * to. A link met in the followed tree back into the start names a file the walk reads there
 * already: it is a repeat, not to be read twice.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { isInside } from "../../../src/layers/Workspace.js"
import { scan, type ScanEntry } from "../../../src/tools/shared/safeFsScan.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const ws = makeTempDirSync("safe-fs-scan-roots-")
afterAll(() => Fs.rmSync(ws, { recursive: true, force: true }))
const at = (rel: string) => Path.join(ws, rel)

Fs.mkdirSync(at("start"))
Fs.mkdirSync(at("other"))
Fs.writeFileSync(at("start/a.txt"), "a")
Fs.writeFileSync(at("other/o.txt"), "o")
Fs.symlinkSync("../other", at("start/toOther"))
Fs.symlinkSync("../start/a.txt", at("other/back.txt"))
Fs.symlinkSync("o.txt", at("other/self.txt"))

describe("scan over the start and a followed tree", () => {
  it.effect("marks a link from the followed tree to a file of the start (or of itself) as a repeat", () =>
    Effect.gen(function*() {
      const visits = new Map<string, ReadonlyArray<ScanEntry>>()
      const result = yield* scan(at("start"), {
        maxDepth: 5,
        skipNames: new Set(),
        resolveLink: (path) =>
          Effect.sync(() => {
            const real = Fs.realpathSync(path)
            return isInside(ws, real) ? Option.some(real) : Option.none()
          }),
        visit: (dir, entries) =>
          Effect.sync(() => {
            visits.set(dir.rel, entries)
            return true
          })
      })
      expect(result).toMatchObject({ stopped: false, unreadable: 0, linksOut: 0 })
      expect([...visits.keys()]).toEqual(["", "toOther"])
      expect(visits.get("")).toEqual([
        { _tag: "File", name: "a.txt", repeat: false },
        { _tag: "Directory", name: "toOther", target: at("other"), expanded: "listed" }
      ])
      expect(visits.get("toOther")).toEqual([
        { _tag: "File", name: "back.txt", target: at("start/a.txt"), repeat: true },
        { _tag: "File", name: "o.txt", repeat: false },
        { _tag: "File", name: "self.txt", target: at("other/o.txt"), repeat: true }
      ])
    }))
})
