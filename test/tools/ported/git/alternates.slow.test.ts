/**
 * The cap on the object directories the git tools check before git runs (the repository's own
 * and its alternates): 64 are used, a 65th is refused. In the slow lane: each call checks 64
 * directories, about 0.5-1 s of CPU for the test. The other alternates bounds and their quoting
 * are in `alternatesQuoting.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { commitAll, gitTestBase, initRepo, toolsIn } from "./gitFixture.js"
import { otherReposIn } from "./otherReposHarness.js"

const base = gitTestBase("git-alt-many-")

const { workspaceIn } = otherReposIn(base)

// live clock: real git processes (effect/process ChildProcess) on real repositories
describe("the cap on object directories", () => {
  // its calls share one tool system (toolsIn): one of its own per call costs a third more CPU
  it.live("64 object directories are checked; a 65th is refused (a lone quote is an entry as written, a quoted empty entry none)", () =>
    Effect.gen(function*() {
      const ws = initRepo(workspaceIn("many"))
      commitAll(ws, "mine")
      const objects = Path.join(ws, ".git", "objects")
      const setAlternates = (text: string) => Fs.writeFileSync(Path.join(objects, "info", "alternates"), text)
      const stores = Array.from({ length: 63 }, (_, i) => {
        const store = Path.join(ws, "stores", `s${i}`)
        Fs.mkdirSync(store, { recursive: true })
        return store
      })
      const run = yield* toolsIn(ws)
      // the repository's own object directory and 63 stores: 64 ("" names nothing, as git reads it)
      setAlternates(`${stores.join("\n")}\n""\n`)
      const within = yield* run("git_log", {})
      expect(within.error).toBeNull()
      expect(within.output).toMatch(/ Test Author: mine$/)
      // a lone quote is not quoted: a name as written, the 65th
      setAlternates(`${stores.join("\n")}\n"\n`)
      const over = yield* run("git_log", {})
      expect({ success: over.success, errorCode: over.errorCode, error: over.error }).toEqual({
        success: false,
        errorCode: "TOOL_ERROR",
        error: "The repository's alternates name over 64 object directories; the git tools do not use it"
      })
    }))
})
