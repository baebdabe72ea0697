/**
 * The environment a tool hands to a child process: the host's, without the variables whose
 * names look like secrets. A command an agent runs has no business reading the host's API
 * keys; a name is judged by its words and its ending (`isSecretName`).
 *
 * @since 0.1.0
 */

/** The words that mark a variable as a secret, wherever they stand in its name (`GITHUB_TOKEN`, `DB_PASSWORD_FILE`). */
const SECRET_WORDS: ReadonlySet<string> = new Set([
  "KEY",
  "KEYS",
  "APIKEY",
  "TOKEN",
  "TOKENS",
  "SECRET",
  "SECRETS",
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "CREDENTIAL",
  "CREDENTIALS"
])

/** Endings that mark a variable as a secret even without a `_` before them (`PGPASSWORD`, `GHTOKEN`). */
const SECRET_ENDINGS: ReadonlyArray<string> = ["APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIALS"]

/**
 * Whether an environment variable's name looks like a secret's: one of its `_`-separated words
 * is `KEY`, `TOKEN`, `SECRET`, `PASSWORD`, `CREDENTIALS` (or a variant: `APIKEY`, `PASSWD`,
 * `PASSPHRASE`, plurals), it ends in `TOKEN`, `SECRET`, `PASSWORD`, ... (`PGPASSWORD`), or it
 * is an AWS variable (`AWS_*`). Case does not matter. `KEYBOARD` or `TOKENIZER` are no secrets.
 */
export const isSecretName = (name: string): boolean => {
  const upper = name.toUpperCase()
  return upper.startsWith("AWS_") ||
    SECRET_ENDINGS.some((ending) => upper.endsWith(ending)) ||
    upper.split("_").some((word) => SECRET_WORDS.has(word))
}

/** `env` without the variables `isSecretName` picks (and without unset ones). */
export const withoutSecrets = (env: NodeJS.ProcessEnv): Record<string, string> => {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretName(name)) kept[name] = value
  }
  return kept
}

/**
 * The variables a child process gets by default (an allow-list: a name not here is dropped,
 * however harmless it looks, so `DATABASE_URL`, `*_PAT`, webhook URLs, DSNs and cookies stay
 * out): where programs are, who and where the user is, the terminal, the language and time
 * zone, the temporary directory and colour preferences.
 */
export const ENV_ALLOW_LIST: ReadonlyArray<string> = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP"
]

const ALLOWED: ReadonlySet<string> = new Set(ENV_ALLOW_LIST)

/** Whether `name` is on the default allow-list (`ENV_ALLOW_LIST`, or a locale variable `LC_*`). */
export const isAllowedName = (name: string): boolean => ALLOWED.has(name) || /^LC_[A-Z]+$/.test(name)

/**
 * The allow-listed variables of `env` (`isAllowedName`) plus those the application names in
 * `passEnv` (passed as they are, even when named like secrets: the application chose them).
 */
export const allowedEnv = (env: NodeJS.ProcessEnv, passEnv: ReadonlyArray<string> = []): Record<string, string> => {
  const extra = new Set(passEnv)
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (isAllowedName(name) || extra.has(name))) kept[name] = value
  }
  return kept
}
