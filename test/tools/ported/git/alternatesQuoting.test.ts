/**
 * How the git tools read a repository's `objects/info/alternates` before git does: a C-quoted
 * entry (as git writes a name with special characters: octal escapes, `\t`, `\"`) is unquoted
 * as git unquotes it, so an outside object directory named that way is refused; an entry that
 * is not well quoted (an unknown escape, a quote at one end only) is a name as written, as git
 * takes it, and one with a quote inside whose parts all lie inside is used. And the bounds: alternates 5 deep, an alternates file that cannot be read; the
 * 64 object directories (64 checked per call) are in `alternates.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { commitAll, gitTestBase, initRepo, runTool } from "./gitFixture.js"
import { expectOutside, otherReposIn } from "./otherReposHarness.js"

const base = gitTestBase("git-alt-quote-")

const { otherRepo, workspaceIn } = otherReposIn(base)

/** A workspace repository with one commit, and its object directory. */
const workspaceRepo = (name: string): { readonly ws: string; readonly objects: string } => {
  const ws = initRepo(workspaceIn(name))
  commitAll(ws, "mine")
  return { ws, objects: Path.join(ws, ".git", "objects") }
}

const setAlternates = (objects: string, text: string): void =>
  Fs.writeFileSync(Path.join(objects, "info", "alternates"), text)

// live clock: real git processes (effect/process ChildProcess) on real repositories
describe("alternates entries as git reads them", () => {
  it.live("an entry written with octal escapes only (\\056 a dot, \\057 a slash) naming an outside object directory: refused", () =>
    Effect.gen(function*() {
      const { blob, other } = otherRepo("octal")
      const { objects, ws } = workspaceRepo("octal")
      const relative = Path.relative(objects, Path.join(other, ".git", "objects"))
      expect(relative.startsWith("../")).toBe(true)
      setAlternates(objects, `"\\056${relative.slice(1).replaceAll("/", "\\057")}"\n`)
      const result = yield* runTool(ws, "git_show", { rev: blob })
      expectOutside(result, /alternates/)
      expect(result.error).toMatch(
        /; the git tools use only a repository that lies wholly inside the workspace \(another repository is neither read nor written\)$/
      )
    }))

  it.live("an entry with \\\" and \\t escapes naming an outside object directory: refused", () =>
    Effect.gen(function*() {
      const { blob, other } = otherRepo("escapes")
      const named = Path.join(Path.dirname(other), "o\"t\tx")
      Fs.renameSync(other, named)
      const { objects, ws } = workspaceRepo("escapes")
      const relative = Path.relative(objects, Path.join(named, ".git", "objects"))
      setAlternates(objects, `"${relative.replace("\"", "\\\"").replace("\t", "\\t")}"\n`)
      expectOutside(yield* runTool(ws, "git_show", { rev: blob }), /alternates/)
    }))

  it.live("entries that are not well quoted are names as written, inside the workspace: the repository is used", () =>
    Effect.gen(function*() {
      const { other } = otherRepo("unquoted")
      const { objects, ws } = workspaceRepo("unquoted")
      const outside = Path.join(other, ".git", "objects")
      const relative = Path.relative(objects, outside)
      setAlternates(
        objects,
        [
          // a quote inside: git takes the quoted part (the inside `sub`), then the rest after one character
          `"${ws}/sub"/../.."`,
          // an unknown escape: not quoted, so `"../` is a directory name
          `"${relative}/x\\q/.."`,
          // a quote at its end only: a relative name
          `x${outside}"`,
          // a quote at its start only (last: git's unquoting runs on to the next quote)
          `"${outside}/`
        ].join("\n") + "\n"
      )
      const result = yield* runTool(ws, "git_log", {})
      expect(result.error).toBeNull()
      expect(result.output).toMatch(/ Test Author: mine$/)
    }))
})

describe("an entry that goes on after its closing quote", () => {
  // git reads the quoted name up to its closing quote and steps over one character: `"/x/objects"x`
  // names /x/objects. Read as a whole line, it was a relative name inside the workspace, and git
  // then read the other repository's objects through it
  it.live("a quoted outside object directory followed by more on its line: refused", () =>
    Effect.gen(function*() {
      const { blob, other } = otherRepo("trailing")
      const { objects, ws } = workspaceRepo("trailing")
      setAlternates(objects, `"${Path.join(other, ".git", "objects")}"x\n`)
      const result = yield* runTool(ws, "git_show", { rev: blob })
      expectOutside(result, /alternates/)
    }))

  it.live("the entry after the character that follows the quote is read too: an outside one is refused", () =>
    Effect.gen(function*() {
      const { blob, other } = otherRepo("after-quote")
      const { objects, ws } = workspaceRepo("after-quote")
      Fs.mkdirSync(Path.join(ws, "inside"))
      setAlternates(objects, `"${Path.join(ws, "inside")}" ${Path.join(other, ".git", "objects")}\n`)
      expectOutside(yield* runTool(ws, "git_show", { rev: blob }), /alternates/)
    }))
})

describe("the bounds of the alternates check", () => {
  it.live("alternates 5 deep are used unless the 5th names more; comments and empty lines name nothing", () =>
    Effect.gen(function*() {
      const { objects, ws } = workspaceRepo("deep")
      const store = (n: number) => Path.join(ws, "stores", `s${n}`)
      for (let n = 1; n <= 5; n++) Fs.mkdirSync(Path.join(store(n), "info"), { recursive: true })
      setAlternates(objects, "../../stores/s1\n")
      for (let n = 1; n < 5; n++) setAlternates(store(n), `../s${n + 1}\n`)
      setAlternates(store(5), "# nothing more\n\n")
      const used = yield* runTool(ws, "git_log", {})
      expect(used.error).toBeNull()
      expect(used.output).toMatch(/ Test Author: mine$/)
      setAlternates(store(5), "../s6\n")
      const refused = yield* runTool(ws, "git_log", {})
      // the path as the agent sees it: relative to the workspace
      expect(refused.error).toBe("The repository's alternates nest deeper than 5 (stores/s5/info/alternates); the git tools do not use it")
    }))

  it.live("an alternates file that cannot be read (a directory): refused, with the reason", () =>
    Effect.gen(function*() {
      const { objects, ws } = workspaceRepo("unreadable")
      Fs.mkdirSync(Path.join(objects, "info", "alternates"))
      const result = yield* runTool(ws, "git_status", {})
      expect({ errorCode: result.errorCode, error: result.error }).toEqual({
        errorCode: "TOOL_ERROR",
        error: "The repository's alternates cannot be checked (\".git/objects/info/alternates\" is a directory, not a file); " +
          "the git tools do not use it"
      })
    }))
})
