/**
 * What every tool definition must satisfy, checked by `Tool.make` and again at registration
 * (for tools built by hand), and the message of any failure a handler raises.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import parse from "semver/functions/parse.js"
import {
  ConfirmationRequired,
  InvalidToolDefinition,
  MemoryLimitExceeded,
  ProtectedPath,
  ToolError,
  ToolTimeout
} from "../domain/errors.js"
import { readableJson } from "../domain/readableJson.js"
import { NAME_PATTERN } from "../domain/ToolSpec.js"

/**
 * The default run timeout of a tool that names none.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_TIMEOUT: Duration.Duration = Duration.seconds(60)

/** `MAJOR.MINOR.PATCH` without leading zeros: canonical as it is (semver's parse is for the rest). */
const PLAIN_VERSION = /^(?:0|[1-9]\d{0,14})\.(?:0|[1-9]\d{0,14})\.(?:0|[1-9]\d{0,14})$/

/** A version exactly as semver writes it (no `v` prefix, no spaces), build metadata allowed. */
const isCanonicalSemver = (version: string): boolean => {
  if (PLAIN_VERSION.test(version)) return true
  const parsed = parse(version)
  if (parsed === null) return false
  const build = parsed.build.length > 0 ? `+${parsed.build.join(".")}` : ""
  return `${parsed.format()}${build}` === version
}

/**
 * Whether a handler's failure is a result of the tool's own, kept as it is: a `ToolError`, a
 * `ToolTimeout` (a tool that keeps its own deadline), a `MemoryLimitExceeded` (a worker-based
 * tool's own memory cap), a `ConfirmationRequired` (a tool that asks as it acts) or a
 * `ProtectedPath` (a path under `.git` the tool found itself, e.g. in metadata), naming this
 * tool. Any other failure becomes a `ToolError`.
 */
export const isOwnFailure = (
  name: string,
  error: unknown
): error is ToolError | ToolTimeout | MemoryLimitExceeded | ConfirmationRequired | ProtectedPath =>
  (error instanceof ToolError || error instanceof ToolTimeout || error instanceof MemoryLimitExceeded ||
    error instanceof ConfirmationRequired || error instanceof ProtectedPath) &&
  error.tool === name

/** Longest message made from a failure's fields. */
const MAX_MESSAGE_CHARS = 500

/** Fields of an error object that are not data a caller acts on. */
const NOT_DETAILS = new Set(["_tag", "message", "stack", "cause", "name"])

/** A JSON copy of `value` as a model reads it (`readableJson`: a bigint as `"2n"`, ...), or `undefined` when too large. */
const jsonCopy = (value: unknown): unknown => {
  const copy = readableJson(value)
  const text = JSON.stringify(copy)
  return text === undefined || text.length > 16_384 ? undefined : copy
}

/**
 * Whether `message` is only a dump of the error's fields (`{ id: 2 }`), as a
 * `Schema.TaggedError` without a `message` field made it on Effect 3 (on Effect 4 it is empty):
 * such an error is shown by its tag and fields instead, so the model learns which error it was.
 */
const isFieldDump = (error: object, message: string): boolean =>
  typeof Reflect.get(error, "_tag") === "string" && !Object.hasOwn(error, "message") &&
  /^\{[\s\S]*\}$/.test(message.trim())

/**
 * The own fields of a failure (a `Data.TaggedError`'s, say) as JSON data, for the result's
 * `details`; `undefined` when it has none.
 */
export const detailsOf = (error: unknown): Record<string, unknown> | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const out: Record<string, unknown> = {}
  let any = false
  for (const key of Object.keys(error)) {
    if (NOT_DETAILS.has(key)) continue
    const copy = jsonCopy(Reflect.get(error, key))
    if (copy === undefined) continue
    out[key] = copy
    any = true
  }
  return any ? out : undefined
}

/**
 * The message of any failure a handler may raise: its own `message` when it has one, else its
 * tag (or class name) and fields, e.g. `NotFound (id: "42")`. Never empty.
 */
export const messageOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const own: unknown = Reflect.get(error, "message")
    if (typeof own === "string" && own.trim() !== "" && !isFieldDump(error, own)) return own
    const tag: unknown = Reflect.get(error, "_tag")
    const label = typeof tag === "string" ? tag : error instanceof Error ? error.name : "Error"
    const details = detailsOf(error)
    if (details === undefined) return label
    const fields = Object.entries(details).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ")
    const text = `${label} (${fields})`
    return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text
  }
  const text = String(error)
  return text.trim() === "" ? "the tool failed without a message" : text
}

/** Checks what every registered tool must satisfy; `undefined` when it does. */
export const definitionProblem = (tool: {
  readonly name: string
  readonly version: string
  readonly timeoutMs: number | undefined
  readonly rateLimitRpm: number | undefined
}): string | undefined => {
  if (!NAME_PATTERN.test(tool.name)) return "the name must match ^[a-zA-Z0-9_-]{1,64}$"
  if (!isCanonicalSemver(tool.version)) return `"${tool.version}" is not a semver version`
  if (tool.timeoutMs !== undefined && !(tool.timeoutMs > 0)) return "the timeout must be positive"
  if (tool.rateLimitRpm !== undefined && !(tool.rateLimitRpm > 0)) return "rateLimitRpm must be positive"
  return undefined
}

/**
 * The version and timeout (ms) of a tool being defined, from its options with their defaults
 * (`1.0.0`, 60 s, `"none"` for no timeout). Throws `InvalidToolDefinition` when the name,
 * version, timeout or rate limit is not acceptable.
 */
export const definitionBasics = (name: string, options: {
  readonly version?: string | undefined
  readonly timeout?: Duration.Input | "none" | undefined
  readonly rateLimitRpm?: number | undefined
}): { readonly version: string; readonly timeoutMs: number | undefined } => {
  const version = options.version ?? "1.0.0"
  const timeoutMs = options.timeout === "none"
    ? undefined
    : Duration.toMillis(options.timeout ?? DEFAULT_TIMEOUT)
  const problem = definitionProblem({ name, version, timeoutMs, rateLimitRpm: options.rateLimitRpm })
  if (problem !== undefined) throw new InvalidToolDefinition({ name, reason: problem })
  return { version, timeoutMs }
}
