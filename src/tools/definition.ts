/**
 * What every tool definition must satisfy, checked by `Tool.make` and again at registration
 * (for tools built by hand), and the message of any failure a handler raises.
 *
 * @since 0.1.0
 */
import * as semver from "semver"
import { NAME_PATTERN } from "../domain/ToolSpec.js"

/** A version exactly as semver writes it (no `v` prefix, no spaces), build metadata allowed. */
const isCanonicalSemver = (version: string): boolean => {
  const parsed = semver.parse(version)
  if (parsed === null) return false
  const build = parsed.build.length > 0 ? `+${parsed.build.join(".")}` : ""
  return `${parsed.format()}${build}` === version
}

/** The message of any failure a handler may raise. */
export const messageOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    return error.message
  }
  return String(error)
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
