/**
 * A workspace whose repository reaches another one: a worktree-style git directory whose
 * `commondir` points out, alternates (absolute, relative, chained, from the host's
 * environment), an objects directory that is a symbolic link out, a workspace below another
 * repository. Every git tool refuses, before git reads or writes the other repository. A `.git`
 * file naming another git directory, which runs every tool, and a repository wholly inside the
 * workspace that still works (three repositories made) are in `otherRepos.slow.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { commitAll, gitTestBase, initRepo, runTool, withEnv } from "./gitFixture.js"
import { expectOutside, otherReposIn } from "./otherReposHarness.js"

const base = gitTestBase("git-other-")

const { otherRepo, workspaceIn } = otherReposIn(base)

describe("git tools on a repository that reaches outside the workspace", () => {

  it.effect("alternates chained through an object directory inside the workspace: refused", () =>
    Effect.gen(function*() {
      const { blob, other } = otherRepo("chained")
      const ws = initRepo(workspaceIn("chained"))
      commitAll(ws, "mine")
      const store = Path.join(ws, "store", "objects")
      Fs.mkdirSync(Path.join(store, "info"), { recursive: true })
      Fs.writeFileSync(Path.join(store, "info", "alternates"), `${Path.join(other, ".git", "objects")}\n`)
      Fs.writeFileSync(Path.join(ws, ".git", "objects", "info", "alternates"), `${store}\n`)
      expectOutside(yield* runTool(ws, "git_show", { rev: blob }), /alternates/)
    }))

  it.effect("an objects directory that is a symbolic link to another repository's: refused", () =>
    Effect.gen(function*() {
      const { blob, other } = otherRepo("objectslink")
      const ws = initRepo(workspaceIn("objectslink"))
      Fs.rmSync(Path.join(ws, ".git", "objects"), { recursive: true })
      Fs.symlinkSync(Path.join(other, ".git", "objects"), Path.join(ws, ".git", "objects"))
      expectOutside(yield* runTool(ws, "git_show", { rev: blob }), /objects/)
    }))

  it.effect("GIT_ALTERNATE_OBJECT_DIRECTORIES in the host's environment is not passed on", () =>
    Effect.gen(function*() {
      const { blob, other } = otherRepo("envalternates")
      const ws = initRepo(workspaceIn("envalternates"))
      commitAll(ws, "mine")
      yield* withEnv({ GIT_ALTERNATE_OBJECT_DIRECTORIES: Path.join(other, ".git", "objects") })
      const result = yield* runTool(ws, "git_show", { rev: blob })
      expect(result.success).toBe(false)
      expect(result.error ?? "").not.toMatch(/secret/)
    }))
})
