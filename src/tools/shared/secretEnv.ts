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
