/**
 * `secretEnv.ts`: the environment a child process gets is the host's without the variables
 * whose names look like secrets (by word, by ending, `AWS_*`), whatever their case; names that
 * only contain such a word inside another word stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { isSecretName, withoutSecrets } from "../../../src/tools/shared/secretEnv.js"

describe("isSecretName", () => {
  it("a secret word anywhere among the name's words", () => {
    for (const name of [
      "KEY", "API_KEY", "OPENAI_API_KEY", "SSH_KEYS", "MY_APIKEY_FILE", "GITHUB_TOKEN", "NPM_TOKENS_X", "CLIENT_SECRET",
      "APP_SECRETS", "DB_PASSWORD_FILE", "MYSQL_PASSWD", "GPG_PASSPHRASE", "GOOGLE_CREDENTIAL", "GOOGLE_APPLICATION_CREDENTIALS"
    ]) expect(isSecretName(name), name).toBe(true)
  })

  it("an ending that marks a secret without a separator, AWS variables, any case", () => {
    for (const name of ["PGPASSWORD", "GHTOKEN", "MYAPIKEY", "JWTSECRET", "SMBPASSWD", "GCPCREDENTIALS", "AWS_REGION", "AWS_PROFILE", "github_token", "Pgpassword", "aws_default_region"]) {
      expect(isSecretName(name), name).toBe(true)
    }
  })

  it("a secret word inside another word is no secret", () => {
    for (const name of ["KEYBOARD", "TOKENIZER_PATH", "PATH", "HOME", "MONKEY", "SECRETARY", "PASSWORDLESS", "LANG", "AWSOME", "XAWS_HOST", "CREDENTIALING"]) {
      expect(isSecretName(name), name).toBe(false)
    }
  })
})

describe("withoutSecrets", () => {
  it("keeps the other variables as they are and drops unset ones", () => {
    expect(withoutSecrets({ PATH: "/bin", API_KEY: "k", HOME: "/root", UNSET: undefined, AWS_REGION: "x", EMPTY: "" })).toStrictEqual({
      PATH: "/bin",
      HOME: "/root",
      EMPTY: ""
    })
  })
})
