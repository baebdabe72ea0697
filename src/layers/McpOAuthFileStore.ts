/**
 * The default token store of `McpOAuth`: one JSON file per server in a directory of the
 * application's (`<name>-<hash>.json`, or the entry's `oauth.tokenFile`).
 *
 * Written atomically: a fresh temporary file beside it (created exclusively, mode `0600`, never
 * through a symbolic link), synced, then renamed over the old one; the directory is made `0700`
 * when missing. Read only when it is a regular file (a symbolic link is not followed), owned by
 * this user, and neither readable nor writable by anyone else: a token file with looser
 * permissions is refused with a message saying what to do, never used (another user may have
 * read the tokens, or planted some). A missing file is no credentials.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Result from "effect/Result"
import { createHash, randomBytes } from "node:crypto"
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as NodePath from "node:path"
import { McpOAuthError, type McpOAuthCredentials, type McpTokenStore, type McpTokenStoreKey } from "../tools/mcp/oauthModels.js"

const Credentials = Schema.Struct({
  resource: Schema.String,
  tokens: Schema.optional(Schema.Struct({
    access_token: Schema.String,
    token_type: Schema.String,
    refresh_token: Schema.optional(Schema.String),
    scope: Schema.optional(Schema.String),
    id_token: Schema.optional(Schema.String),
    expires_at: Schema.optional(Schema.Number),
    issuer: Schema.optional(Schema.String)
  })),
  client: Schema.optional(Schema.Struct({
    client_id: Schema.String,
    client_secret: Schema.optional(Schema.String),
    client_id_issued_at: Schema.optional(Schema.Number),
    client_secret_expires_at: Schema.optional(Schema.Number),
    token_endpoint_auth_method: Schema.optional(Schema.String),
    issuer: Schema.optional(Schema.String)
  }))
})

const decodeCredentials = Schema.decodeUnknownResult(Credentials, { onExcessProperty: "ignore" })

/**
 * The file of a server in `directory`: its name made safe for a file name (other characters
 * become `_`), and a hash of the whole name so two names never share a file.
 *
 * @internal
 */
export const tokenFileName = (server: string): string =>
  `${server.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "_").slice(0, 64)}-${
    createHash("sha256").update(server).digest("hex").slice(0, 12)
  }.json`

const codeOf = (error: unknown): string | undefined => {
  const code = error instanceof Error ? Reflect.get(error, "code") : undefined
  return typeof code === "string" ? code : undefined
}

/** A failed file operation, as a reason: the code and the path, never the file's content. */
const fsReason = (what: string, file: string, error: unknown): string =>
  `cannot ${what} the token file ${file}: ${codeOf(error) ?? (error instanceof Error ? error.message : String(error))}`

/** The mode's permission bits, as `chmod` writes them (`0644`). */
const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`

/** Reads `file` when it is safe to (see the module's note); `undefined` when it does not exist. */
const readPrivate = async (file: string): Promise<string | undefined> => {
  let handle: fs.FileHandle
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    if (codeOf(error) === "ENOENT") return undefined
    if (codeOf(error) === "ELOOP") throw new Error(`the token file ${file} is a symbolic link; it is not followed`)
    throw new Error(fsReason("open", file, error))
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw new Error(`the token file ${file} is not a regular file`)
    const uid = process.getuid?.()
    if (uid !== undefined && stat.uid !== uid) {
      throw new Error(`the token file ${file} belongs to user ${stat.uid}, not to this user (${uid}); it is not used`)
    }
    if ((stat.mode & 0o077) !== 0) {
      throw new Error(
        `the token file ${file} has mode ${octal(stat.mode)}: others may read or change it, so it is not used; ` +
          `make it private (chmod 600 ${file}) if no one else could have read it, or delete it to authorize again`
      )
    }
    return await handle.readFile("utf8")
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** Writes `text` to `file` atomically, mode `0600`. */
const writePrivate = async (file: string, text: string): Promise<void> => {
  const directory = NodePath.dirname(file)
  await fs.mkdir(directory, { recursive: true, mode: 0o700 })
  const temporary = NodePath.join(directory, `.${NodePath.basename(file)}.${randomBytes(6).toString("hex")}.tmp`)
  const handle = await fs.open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
  try {
    // the umask can only narrow the mode; this makes it exactly 0600
    await handle.chmod(0o600)
    await handle.writeFile(text, "utf8")
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => undefined)
    await fs.unlink(temporary).catch(() => undefined)
    throw error
  }
  await handle.close()
  try {
    await fs.rename(temporary, file)
  } catch (error) {
    await fs.unlink(temporary).catch(() => undefined)
    throw error
  }
}

/**
 * The file token store over `directory` (see the module's note).
 *
 * @internal
 */
export const makeFileTokenStore = (directory: string): McpTokenStore => {
  const fileOf = (key: McpTokenStoreKey): string => NodePath.resolve(key.tokenFile ?? NodePath.join(directory, tokenFileName(key.server)))
  const fail = (key: McpTokenStoreKey) => (reason: string) => new McpOAuthError({ server: key.server, reason })
  return {
    load: (key) =>
      Effect.gen(function*() {
        const file = fileOf(key)
        const text = yield* Effect.tryPromise({
          try: () => readPrivate(file),
          catch: (error) => fail(key)(error instanceof Error ? error.message : String(error))
        })
        if (text === undefined) return Option.none<McpOAuthCredentials>()
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          return yield* fail(key)(`the token file ${file} is not JSON; delete it to authorize again`)
        }
        const decoded = decodeCredentials(json)
        if (Result.isFailure(decoded)) return yield* fail(key)(`the token file ${file} is not a token file of this bridge; delete it to authorize again`)
        return Option.some<McpOAuthCredentials>(decoded.success)
      }),
    save: (key, credentials) => {
      const file = fileOf(key)
      return Effect.tryPromise({
        try: () => writePrivate(file, `${JSON.stringify(credentials, null, 2)}\n`),
        catch: (error) => fail(key)(fsReason("write", file, error))
      })
    },
    clear: (key) => {
      const file = fileOf(key)
      return Effect.tryPromise({
        try: () => fs.unlink(file).catch((error: unknown) => (codeOf(error) === "ENOENT" ? undefined : Promise.reject(error))),
        catch: (error) => fail(key)(fsReason("delete", file, error))
      })
    }
  }
}
