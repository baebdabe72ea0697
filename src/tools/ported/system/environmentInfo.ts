/**
 * `get_environment_info`: what a model needs to know about the machine the tools run on: the
 * OS and its release, architecture, Node version, CPUs, memory, time zone and the conventions
 * of paths and line endings. Deliberately left out: environment variables (names or values),
 * the host name, the user, and every absolute path: the workspace root is shown as ".", since
 * even its last component can name a user (`/home/alice`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Os from "node:os"
import * as NodePath from "node:path"
import { make } from "../../defineBuiltin.js"

/** The facts, one per line. */
export const environmentInfo = (): string => {
  const zone = Intl.DateTimeFormat().resolvedOptions()
  const memory = Os.totalmem() / 2 ** 30
  return [
    `OS: ${Os.type()} ${Os.release()} (platform ${process.platform})`,
    `architecture: ${process.arch}`,
    `Node.js: ${process.version}`,
    `CPUs: ${Os.availableParallelism()}`,
    `memory: ${memory.toFixed(1)} GiB`,
    `time zone: ${zone.timeZone || "UTC"} (locale ${zone.locale})`,
    "workspace root: \".\" (every path argument is relative to it)",
    `path separator: ${JSON.stringify(NodePath.sep)}; line ending: ${Os.EOL === "\r\n" ? "CRLF" : "LF"}`
  ].join("\n")
}

export const getEnvironmentInfo = make("get_environment_info", {
  description: "Describe the environment the tools run in: operating system, architecture, Node.js version, CPUs, " +
    "memory, time zone, path separator and line ending. No environment variables, host names or absolute paths; " +
    "the workspace root is \".\".",
  parameters: Schema.Struct({}),
  readOnly: true,
  tags: ["system", "ported"],
  timeout: "5 seconds",
  handler: () => Effect.sync(environmentInfo)
})
