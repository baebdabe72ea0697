/**
 * The git tools' argument and output helpers as pure functions: `GitName` (no leading `-`,
 * no control characters, 1 to 256 characters, and the JSON Schema that says so), `gitPath`
 * (relative to the root, `.` for the root), `withCutNote`, `succeeded` and `gitMessage`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { argumentParseOptions, issuesOf } from "../../../../src/domain/argumentLimits.js"
import { parametersJsonSchema } from "../../../../src/domain/parametersSchema.js"
import { unsafeResolvedPath } from "../../../../src/domain/WorkspacePath.js"
import { gitPath, GitName, succeeded, withCutNote } from "../../../../src/tools/ported/git/gitArgs.js"
import { GIT_MAX_OUTPUT_BYTES, gitEnvironment, type GitOutput } from "../../../../src/tools/ported/git/gitCommand.js"
import { gitMessage, repositoryFilterDrivers } from "../../../../src/tools/ported/git/repository.js"

// the argument problems a call gets, as Effect 3's array formatter wrote them
const check = (s: string) =>
  Result.mapError(Schema.decodeUnknownResult(GitName("revision"), argumentParseOptions)(s), (e) => issuesOf(e).map((i) => i.message))

/** The JSON Schema the library writes for a field of this schema (Effect 3's `JSONSchema.make` of it). */
const jsonSchemaOf = (schema: Schema.Codec<string, string>): unknown => {
  const properties = parametersJsonSchema(Schema.Struct({ field: schema })).properties
  return typeof properties === "object" && properties !== null ? Reflect.get(properties, "field") : undefined
}

const output = (fields: Partial<GitOutput>): GitOutput => ({ exitCode: 0, stdout: "", cut: false, stderr: "", ...fields })

describe("GitName", () => {
  it("takes names of 1 to 256 characters that git cannot read as options or break lines with", () => {
    for (const ok of ["main", "HEAD~2", "a-b", "v1.0", "feature/x", "é", "x".repeat(256), "ab\u0080"]) {
      expect(check(ok), JSON.stringify(ok)).toEqual(Result.succeed(ok))
    }
    expect(check("-x")).toEqual(Result.fail(["a revision must not begin with \"-\" (git would read it as an option)"]))
    expect(check("--output=/tmp/f")).toEqual(Result.fail(["a revision must not begin with \"-\" (git would read it as an option)"]))
    for (const bad of ["a\u0000b", "a\nb", "a\u001fb", "a\u007fb", "\tmain"]) {
      expect(check(bad), JSON.stringify(bad)).toEqual(Result.fail(["a revision must not contain control characters"]))
    }
    expect(Result.isFailure(check(""))).toBe(true)
    expect(Result.isFailure(check("x".repeat(257)))).toBe(true)
  })

  it("says in its JSON Schema that it must not begin with -", () => {
    expect(jsonSchemaOf(GitName("branch"))).toMatchObject({ type: "string", minLength: 1, maxLength: 256, pattern: "^[^-]" })
  })
})

describe("gitPath, withCutNote, succeeded, gitMessage", () => {
  it("names a path relative to the root, and the root as .", () => {
    expect(gitPath("/ws", unsafeResolvedPath("/ws"))).toBe(".")
    expect(gitPath("/ws", unsafeResolvedPath("/ws/src/a.ts"))).toBe("src/a.ts")
  })

  it("adds the cut note only to output that was cut", () => {
    expect(withCutNote(output({ stdout: "all" }), "narrow it")).toBe("all")
    expect(withCutNote(output({ stdout: "start", cut: true, exitCode: undefined }), "narrow it")).toBe(
      `start\n... [output cut at ${GIT_MAX_OUTPUT_BYTES / 1024} KiB: narrow it]`
    )
  })

  it.effect("passes a run that exited 0 or was cut; fails another with git's own message", () =>
    Effect.gen(function*() {
      const ok = output({ stdout: "fine" })
      expect(yield* succeeded("git_log", "git log")(ok)).toBe(ok)
      const cut = output({ cut: true, exitCode: undefined })
      expect(yield* succeeded("git_log", "git log")(cut)).toBe(cut)
      const failed = yield* Effect.flip(succeeded("git_log", "git log")(output({ exitCode: 128, stderr: "fatal: bad revision\n" })))
      expect(failed).toMatchObject({ _tag: "ToolError", tool: "git_log", message: "git log failed: fatal: bad revision" })
    }))

  it("gitMessage: stderr, else stdout, trimmed, at most 12 lines", () => {
    expect(gitMessage(output({ stderr: "  err  ", stdout: "out" }))).toBe("err")
    expect(gitMessage(output({ stderr: " \n", stdout: " out\n" }))).toBe("out")
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")
    expect(gitMessage(output({ stderr: lines(12) }))).toBe(lines(12))
    expect(gitMessage(output({ stderr: lines(13) }))).toBe(`${lines(12)}\n...`)
  })
})

describe("repositoryFilterDrivers", () => {
  const listing = (...entries: ReadonlyArray<readonly [string, string]>) => entries.map(([scope, entry]) => `${scope}\u0000${entry}\u0000`).join("")

  it("names the drivers of the repository's own scopes (local, worktree, command), not the user's or the system's", () => {
    expect(repositoryFilterDrivers(listing(
      ["local", "filter.lfs.clean\ngit-lfs clean -- %f.orig"],
      ["global", "filter.mine.smudge\ncat"],
      ["system", "filter.theirs.clean\ncat"],
      ["worktree", "filter.wt.process\nrun"],
      ["command", "filter.cmd.required\ntrue"],
      ["local", "filter.lfs.smudge\ngit-lfs smudge -- %f"]
    ))).toEqual(["lfs", "wt", "cmd"])
  })

  it("reads a key without a value, a name holding dots, and skips keys that name no driver", () => {
    expect(repositoryFilterDrivers(listing(
      ["local", "filter.bare.required"],
      ["local", "filter.a.b.c.clean\nx"],
      ["local", "filter..clean\nx"],
      ["local", "filter.x\ny"],
      ["local", "core.filter.clean\nz"]
    ))).toEqual(["bare", "a.b.c"])
  })

  it("ignores a scope without its entry at the end, and an empty listing", () => {
    expect(repositoryFilterDrivers(`${listing(["local", "filter.one.clean\nx"])}local`)).toEqual(["one"])
    expect(repositoryFilterDrivers("")).toEqual([])
  })
})

describe("gitEnvironment", () => {
  it("takes no optional locks for a read-only run only; adds the given variables; passes no secrets", () => {
    const saved = process.env.GIT_TEST_TOKEN
    process.env.GIT_TEST_TOKEN = "secret"
    try {
      const reading = gitEnvironment("/w/repo", true, { EXTRA: "1" })
      expect(reading).toMatchObject({ GIT_OPTIONAL_LOCKS: "0", EXTRA: "1", GIT_CEILING_DIRECTORIES: "/w", GIT_TERMINAL_PROMPT: "0" })
      expect(reading.GIT_TEST_TOKEN).toBeUndefined()
      expect(gitEnvironment("/w/repo", false).GIT_OPTIONAL_LOCKS).toBeUndefined()
    } finally {
      if (saved === undefined) delete process.env.GIT_TEST_TOKEN
      else process.env.GIT_TEST_TOKEN = saved
    }
  })

  it("keeps the host's other variables and its identity, drops every other GIT_* one, and fixes git's behaviour", () => {
    const names = ["GIT_DIR", "git_work_tree", "GIT_AUTHOR_NAME", "ETS_PLAIN_VARIABLE"] as const
    const saved = names.map((name) => [name, process.env[name]] as const)
    process.env.GIT_DIR = "/elsewhere/.git"
    process.env.git_work_tree = "/elsewhere"
    process.env.GIT_AUTHOR_NAME = "Host Author"
    process.env.ETS_PLAIN_VARIABLE = "kept"
    try {
      const env = gitEnvironment("/w/repo", false)
      expect(env.GIT_DIR).toBeUndefined()
      expect(env.git_work_tree).toBeUndefined()
      expect(env).toMatchObject({ GIT_AUTHOR_NAME: "Host Author", ETS_PLAIN_VARIABLE: "kept" })
      expect(env.PATH).toBe(process.env.PATH)
      expect(env).toMatchObject({
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_ATTR_NOSYSTEM: "1",
        GIT_TERMINAL_PROMPT: "0",
        GIT_PROTOCOL_FROM_USER: "0",
        GIT_EDITOR: "true",
        GIT_SEQUENCE_EDITOR: "true",
        GIT_PAGER: "cat",
        PAGER: "cat",
        LC_ALL: "C",
        LANGUAGE: "C"
      })
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    }
  })
})
