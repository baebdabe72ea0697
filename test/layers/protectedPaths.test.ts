/**
 * `.git` as file systems spell it, asked directly: a component is a `.git` in any case, with
 * trailing dots or spaces (NTFS) or HFS+'s ignored code points; names that only contain it are
 * not. `refuseProtected` names the first protected path workspace-relative, with the component
 * as spelled, and gives the paths back when none is.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { ProtectedPath } from "../../src/domain/errors.js"
import { isDotGit, protectedComponent, refuseProtected } from "../../src/layers/protectedPaths.js"

const root = "/srv/ws"

describe("isDotGit", () => {
  it("is a .git on some file system", () => {
    for (const name of [".git", ".GIT", ".Git", ".git.", ".git ", ".git. .", ".g\u200cit", "\ufeff.git", ".gi\u202et"]) {
      expect(isDotGit(name), JSON.stringify(name)).toBe(true)
    }
  })

  it("is not a name that only holds it", () => {
    for (const name of ["git", ".gitignore", "my.git", ".git-old", "..git", " .git", ".gít", ""]) {
      expect(isDotGit(name), JSON.stringify(name)).toBe(false)
    }
  })
})

describe("protectedComponent", () => {
  it("finds the first .git component below the root, as spelled", () => {
    expect(protectedComponent(root, "/srv/ws/.git/hooks/pre-commit")).toEqual(Option.some(".git"))
    expect(protectedComponent(root, "/srv/ws/sub/.GIT/config")).toEqual(Option.some(".GIT"))
    expect(protectedComponent(root, "/srv/ws/sub/.git")).toEqual(Option.some(".git"))
    expect(protectedComponent(root, "/srv/ws/notes/.gitignore")).toEqual(Option.none())
    expect(protectedComponent(root, "/srv/ws")).toEqual(Option.none())
  })

  it("looks only below the root", () => {
    expect(protectedComponent("/srv/.git/ws", "/srv/.git/ws/a.txt")).toEqual(Option.none())
  })
})

describe("refuseProtected", () => {
  it.effect("fails with ProtectedPath for the first protected path, named workspace-relative", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(
        refuseProtected("move_file", root, ["/srv/ws/a.txt", "/srv/ws/sub/.Git./hooks/x", "/srv/ws/.git/config"])
      )
      expect(refused).toBeInstanceOf(ProtectedPath)
      expect(refused).toMatchObject({ tool: "move_file", path: "sub/.Git./hooks/x", component: ".Git.", code: "PROTECTED_PATH" })
      expect(refused.message).toBe(
        "Tool \"move_file\" may not change \"sub/.Git./hooks/x\": it is under .Git., a repository's metadata, which tools only read"
      )
    }))

  it.effect("gives the paths back when none is protected", () =>
    Effect.gen(function*() {
      const paths = ["/srv/ws/a.txt", "/srv/ws/my.git/x"]
      expect(yield* refuseProtected("write_file", root, paths)).toBe(paths)
      expect(yield* refuseProtected("write_file", root, [])).toEqual([])
    }))
})
