/**
 * `secretEnv.ts`'s allow-list (`secretEnv.test.ts` covers the secret names): a child process
 * gets by default only the allow-listed variables and the locale ones (`LC_` and one word), and
 * besides them exactly those the application names in `passEnv`, as they are.
 */
import { describe, expect, it } from "@effect/vitest"
import { allowedEnv, ENV_ALLOW_LIST, isAllowedName } from "../../../src/tools/shared/secretEnv.js"

describe("isAllowedName", () => {
  it("the allow-listed names and the locale variables are allowed", () => {
    for (const name of [...ENV_ALLOW_LIST, "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_X"]) {
      expect(isAllowedName(name), name).toBe(true)
    }
  })

  it("any other name is refused, however harmless, and so are names that only look like a locale variable", () => {
    for (
      const name of [
        "DATABASE_URL",
        "GITHUB_PAT",
        "EDITOR",
        "path",
        "LC_",
        "LC_all",
        "LC_1",
        "LC_CTYPE_FILE",
        "LC_ALL2",
        "MY_LC_ALL",
        "XLC_ALL"
      ]
    ) {
      expect(isAllowedName(name), name).toBe(false)
    }
  })
})

describe("allowedEnv", () => {
  const host = {
    PATH: "/usr/bin",
    HOME: "/home/me",
    LC_ALL: "C.UTF-8",
    DATABASE_URL: "postgres://u:p@db/x",
    GITHUB_TOKEN: "ghp_x",
    EDITOR: "vi",
    UNSET: undefined
  }

  it("by default: only the allow-listed and locale variables, with their values", () => {
    expect(allowedEnv(host)).toStrictEqual({ PATH: "/usr/bin", HOME: "/home/me", LC_ALL: "C.UTF-8" })
  })

  it("the names in passEnv pass as well, even one named like a secret; a name in passEnv the host does not set stays out", () => {
    expect(allowedEnv(host, ["GITHUB_TOKEN", "EDITOR", "UNSET", "NOT_THERE"])).toStrictEqual({
      PATH: "/usr/bin",
      HOME: "/home/me",
      LC_ALL: "C.UTF-8",
      GITHUB_TOKEN: "ghp_x",
      EDITOR: "vi"
    })
  })

  it("an empty environment gives an empty one", () => {
    expect(allowedEnv({}, ["PATH"])).toStrictEqual({})
  })
})
