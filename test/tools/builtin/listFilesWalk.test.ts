/**
 * `list_files` and the file system it walks: it opens no directory deeper than the pattern can
 * match, reads no size of a directory, and reads the sizes of several directories at once.
 * Each test plays the file system with a wrapped `node:fs` call (`fsCalls.ts`, `replaceBuiltin.ts`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { failingFor } from "../../helpers/fsCalls.js"
import { replaceBuiltinExport } from "../../helpers/replaceBuiltin.js"
import { tempDir } from "../../helpers/tempDir.js"
import { list } from "./listFilesHarness.js"

type Callback = (...args: Array<unknown>) => unknown

/** A workspace of the files `rels` (parents made), each holding its own name. */
const workspaceWith = (...rels: ReadonlyArray<string>) =>
  Effect.tap(tempDir("list-walk-"), (root) =>
    Effect.sync(() => {
      for (const rel of rels) {
        Fs.mkdirSync(Path.dirname(Path.join(root, rel)), { recursive: true })
        Fs.writeFileSync(Path.join(root, rel), rel)
      }
    }))

/**
 * For the current scope: `fs.lstat` of a path whose last name `holds` accepts answers only when
 * `release()` is called or after half a second (as on a mount point of a slow server); `events`
 * tells the calls held and answered, in order.
 */
const heldLstat = (holds: (name: string) => boolean) => {
  const events: Array<string> = []
  const waiting: Array<() => void> = []
  const release = () => waiting.splice(0).forEach((answer) => answer())
  return Effect.as(
    Effect.acquireRelease(
      Effect.sync(() =>
        replaceBuiltinExport<Callback>("node:fs", "lstat", (original) => (...args) => {
          const target = args[0]
          if (typeof target !== "string") return original(...args)
          const name = Path.basename(target)
          events.push(`asked ${name}`)
          if (!holds(name)) return original(...args)
          const answer = () => {
            clearTimeout(timer)
            events.push(`answered ${name}`)
            original(...args)
          }
          const timer = setTimeout(() => {
            waiting.splice(waiting.indexOf(answer), 1)
            answer()
          }, 500)
          waiting.push(answer)
          return undefined
        })
      ),
      (restore) => Effect.sync(restore)
    ),
    { release, events }
  )
}

describe("list_files walks only as deep as the pattern can match", () => {
  const tree = ["top.txt", "sub/a.txt", "sub/locked/x.txt"]

  it.effect("a pattern of one level opens no directory below the one listed", () =>
    Effect.gen(function*() {
      const root = yield* workspaceWith(...tree)
      yield* failingFor("open", "EACCES", { name: /^(sub|locked)$/ })
      const r = yield* list({ pattern: "*" }, root)
      expect(r.output).toBe("2 entries in the workspace root matching \"*\" (this level only):\n[dir]  sub/\n[file] top.txt (7 bytes)")
    }))

  it.effect("a pattern of two levels opens the directories of the first level only", () =>
    Effect.gen(function*() {
      const root = yield* workspaceWith(...tree)
      yield* failingFor("open", "EACCES", { name: "locked" })
      const r = yield* list({ pattern: "sub/*" }, root)
      expect(r.output).toBe(
        "2 entries in the workspace root matching \"sub/*\" (this level only):\n[file] sub/a.txt (9 bytes)\n[dir]  sub/locked/"
      )
    }))

  it.effect("a pattern of two levels on a path of one name also goes one level down only", () =>
    Effect.gen(function*() {
      const root = yield* workspaceWith(...tree)
      yield* failingFor("open", "EACCES", { name: "locked" })
      const r = yield* list({ pattern: "*/*" }, root)
      expect(r.output).toBe(
        "2 entries in the workspace root matching \"*/*\" (this level only):\n[file] sub/a.txt (9 bytes)\n[dir]  sub/locked/"
      )
    }))
})

describe("list_files and the sizes it reads", () => {
  it.effect("a directory is shown without its size being read (a slow mount point does not slow the listing)", () =>
    Effect.gen(function*() {
      const root = yield* workspaceWith("mnt/inside.txt", "top.txt")
      const { events } = yield* heldLstat((name) => name === "mnt")
      const r = yield* list({}, root)
      expect(r.output).toBe("2 entries in the workspace root matching \"*\" (this level only):\n[dir]  mnt/\n[file] top.txt (7 bytes)")
      expect(events.filter((e) => / (mnt|inside\.txt|top\.txt)$/.test(e))).toEqual(["asked top.txt"])
    }))

  it.effect("the sizes in several directories are read at once, not one directory after another", () =>
    Effect.gen(function*() {
      const root = yield* workspaceWith("a/one.txt", "b/two.txt")
      // the size in a/ is answered once the one in b/ has been asked for
      const gate = yield* heldLstat((name) => name === "one.txt")
      yield* Effect.acquireRelease(
        Effect.sync(() =>
          replaceBuiltinExport<Callback>("node:fs", "lstat", (original) => (...args) => {
            const asked = original(...args)
            if (typeof args[0] === "string" && Path.basename(args[0]) === "two.txt") gate.release()
            return asked
          })
        ),
        (restore) => Effect.sync(restore)
      )
      const r = yield* list({ pattern: "*/*" }, root)
      expect(r.output).toBe(
        "2 entries in the workspace root matching \"*/*\" (this level only):\n[file] a/one.txt (9 bytes)\n[file] b/two.txt (9 bytes)"
      )
      expect(gate.events.filter((e) => / (one|two)\.txt$/.test(e))).toEqual(["asked one.txt", "asked two.txt", "answered one.txt"])
    }))
})
