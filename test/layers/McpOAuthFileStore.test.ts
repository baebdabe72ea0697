/**
 * The file token store of `McpOAuth`, on a real directory: what it saves it loads back, and a
 * token file it cannot trust (another user's, a symbolic link, not a regular file, not JSON,
 * not a token file) is refused with a message saying why, never used.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeFileTokenStore, tokenFileName } from "../../src/layers/McpOAuthFileStore.js"
import { openDescriptors } from "../helpers/auditLogHarness.js"
import { tempDir } from "../helpers/tempDir.js"

const credentials = {
  resource: "https://mcp.example/mcp",
  tokens: { access_token: "at-1", token_type: "Bearer", refresh_token: "rt-1", expires_at: 1_900_000_000 },
  client: { client_id: "client-1" }
}

const reasonOf = <A>(effect: Effect.Effect<A, { readonly reason: string }>) =>
  Effect.flip(effect).pipe(Effect.map((error) => error.reason))

const isRoot = process.getuid?.() === 0

describe("makeFileTokenStore", () => {
  it.effect("saves a server's credentials to a private file, loads them back, and clears them", () =>
    Effect.gen(function*() {
      const directory = path.join(yield* tempDir("token-store-"), "tokens")
      const store = makeFileTokenStore(directory)
      const key = { server: "remote" }
      expect(yield* store.load(key)).toEqual(Option.none())
      yield* store.save(key, credentials)
      const file = path.join(directory, tokenFileName("remote"))
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(fs.statSync(directory).mode & 0o777).toBe(0o700)
      expect(yield* store.load(key)).toEqual(Option.some(credentials))
      yield* store.clear(key)
      expect(fs.existsSync(file)).toBe(false)
      expect(yield* store.load(key)).toEqual(Option.none())
      // clearing what is not there is not an error
      yield* store.clear(key)
    }))

  // only root can give a file to another user
  it.effect.skipIf(!isRoot)("a token file owned by another user is refused, even with mode 0600", () =>
    Effect.gen(function*() {
      const directory = yield* tempDir("token-store-")
      const tokenFile = path.join(directory, "theirs.json")
      fs.writeFileSync(tokenFile, JSON.stringify(credentials), { mode: 0o600 })
      fs.chownSync(tokenFile, 65534, 65534)
      const reason = yield* reasonOf(makeFileTokenStore(directory).load({ server: "remote", tokenFile }))
      expect(reason).toBe(`the token file ${tokenFile} belongs to user 65534, not to this user (0); it is not used`)
    }))

  it.effect("a symbolic link at the token file is not followed", () =>
    Effect.gen(function*() {
      const directory = yield* tempDir("token-store-")
      const target = path.join(directory, "planted.json")
      fs.writeFileSync(target, JSON.stringify(credentials), { mode: 0o600 })
      const tokenFile = path.join(directory, "link.json")
      fs.symlinkSync(target, tokenFile)
      const reason = yield* reasonOf(makeFileTokenStore(directory).load({ server: "remote", tokenFile }))
      expect(reason).toBe(`the token file ${tokenFile} is a symbolic link; it is not followed`)
    }))

  it.effect("a directory, a file that is not JSON and JSON that is not a token file are refused, saying what to do", () =>
    Effect.gen(function*() {
      const directory = yield* tempDir("token-store-")
      const store = makeFileTokenStore(directory)
      const folder = path.join(directory, "folder.json")
      fs.mkdirSync(folder, { mode: 0o700 })
      expect(yield* reasonOf(store.load({ server: "a", tokenFile: folder }))).toBe(
        `the token file ${folder} is not a regular file`
      )
      const garbled = path.join(directory, "garbled.json")
      fs.writeFileSync(garbled, "{ not json", { mode: 0o600 })
      expect(yield* reasonOf(store.load({ server: "b", tokenFile: garbled }))).toBe(
        `the token file ${garbled} is not JSON; delete it to authorize again`
      )
      const foreign = path.join(directory, "foreign.json")
      fs.writeFileSync(foreign, JSON.stringify({ tokens: "no resource" }), { mode: 0o600 })
      expect(yield* reasonOf(store.load({ server: "c", tokenFile: foreign }))).toBe(
        `the token file ${foreign} is not a token file of this bridge; delete it to authorize again`
      )
    }))

  it.effect("a file the store cannot write names the operation and the code, not the tokens", () =>
    Effect.gen(function*() {
      const directory = yield* tempDir("token-store-")
      const blocker = path.join(directory, "file")
      fs.writeFileSync(blocker, "")
      const tokenFile = path.join(blocker, "tokens.json")
      const reason = yield* reasonOf(makeFileTokenStore(directory).save({ server: "remote", tokenFile }, credentials))
      expect(reason).toBe(`cannot write the token file ${tokenFile}: EEXIST`)
      expect(reason).not.toContain("at-1")
    }))

  it.effect("a token file that cannot be opened, or deleted, names the operation and the code", () =>
    Effect.gen(function*() {
      const directory = yield* tempDir("token-store-")
      const store = makeFileTokenStore(directory)
      const blocker = path.join(directory, "file")
      fs.writeFileSync(blocker, "")
      const below = path.join(blocker, "tokens.json")
      expect(yield* reasonOf(store.load({ server: "a", tokenFile: below }))).toBe(`cannot open the token file ${below}: ENOTDIR`)
      const folder = path.join(directory, "folder.json")
      fs.mkdirSync(folder)
      expect(yield* reasonOf(store.clear({ server: "b", tokenFile: folder }))).toBe(`cannot delete the token file ${folder}: EISDIR`)
    }))

  it.effect("a save whose file cannot be put in place fails and leaves no temporary file", () =>
    Effect.gen(function*() {
      const directory = yield* tempDir("token-store-")
      const folder = path.join(directory, "folder.json")
      fs.mkdirSync(folder)
      fs.writeFileSync(path.join(folder, "inside"), "")
      const reason = yield* reasonOf(makeFileTokenStore(directory).save({ server: "remote", tokenFile: folder }, credentials))
      expect(reason).toBe(`cannot write the token file ${folder}: EISDIR`)
      expect(fs.readdirSync(directory)).toEqual(["folder.json"])
    }))

  it.effect("a save whose data cannot be flushed to disk fails, leaving neither a temporary nor a token file", () =>
    Effect.gen(function*() {
      const directory = yield* tempDir("token-store-")
      // the disk refuses the next fsync of any file handle (a full or failing disk)
      const probe = yield* Effect.promise(() => fs.promises.open(path.join(directory, "probe"), "w"))
      const prototype: { sync: () => Promise<void> } = Object.getPrototypeOf(probe)
      yield* Effect.promise(() => probe.close())
      fs.rmSync(path.join(directory, "probe"))
      const sync = prototype.sync
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          prototype.sync = () => Promise.reject(Object.assign(new Error("i/o error (test)"), { code: "EIO" }))
        }),
        () => Effect.sync(() => {
          prototype.sync = sync
        })
      )
      const tokenFile = path.join(directory, "tokens.json")
      const reason = yield* reasonOf(makeFileTokenStore(directory).save({ server: "remote", tokenFile }, credentials))
      expect(reason).toBe(`cannot write the token file ${tokenFile}: EIO`)
      expect(fs.readdirSync(directory)).toEqual([])
    }))

  it.effect("loading a token file leaves no descriptor open on it", () =>
    Effect.gen(function*() {
      const directory = yield* tempDir("token-store-")
      const store = makeFileTokenStore(directory)
      yield* store.save({ server: "remote" }, credentials)
      const file = path.join(directory, tokenFileName("remote"))
      expect(yield* store.load({ server: "remote" })).toEqual(Option.some(credentials))
      expect(openDescriptors(file)).toBe(0)
    }))
})

describe("tokenFileName", () => {
  it("keeps letters, digits, _ . -; makes every other character _; a leading run of dots one _", () => {
    expect(tokenFileName("my-server_1.example")).toMatch(/^my-server_1\.example-[0-9a-f]{12}\.json$/)
    expect(tokenFileName("a/b:c d")).toMatch(/^a_b_c_d-[0-9a-f]{12}\.json$/)
    expect(tokenFileName("...hidden.name")).toMatch(/^_hidden\.name-[0-9a-f]{12}\.json$/)
  })

  it("keeps the first 64 characters of the name, and 12 hex digits of its hash: two names never share a file", () => {
    const long = "s".repeat(100)
    expect(tokenFileName(long)).toMatch(new RegExp(`^${"s".repeat(64)}-[0-9a-f]{12}\\.json$`))
    expect(tokenFileName(`${"s".repeat(64)}x`)).not.toBe(tokenFileName(`${"s".repeat(64)}y`))
    expect(tokenFileName("a/b")).not.toBe(tokenFileName("a:b"))
  })
})
