/**
 * `run_command`: runs a command line with `/bin/sh -c` in a workspace directory and returns its
 * exit status, stdout and stderr.
 *
 * - The shell leads a process group of its own (`processGroup.ts`). When the command ends, times
 *   out, or the caller is interrupted, the whole group gets `SIGTERM`, then `SIGKILL` after
 *   `KILL_GRACE_MS`: background jobs (`server &`) do not outlive the call.
 * - stdin is closed (`/dev/null`): a command waiting for input reads end-of-file.
 * - stdout and stderr are each kept up to `RUN_COMMAND_MAX_OUTPUT_BYTES` while being read (the
 *   rest is counted, never held); a cut stream says so and how to see the rest.
 * - The environment is an allow-list (`shared/secretEnv.ts`: `PATH`, `HOME`, `USER`, `LOGNAME`,
 *   `SHELL`, `TERM`, `LANG`, `LC_*`, `TZ`, `TMPDIR`, ...) plus the names the application passes:
 *   `makeRunCommand({ passEnv })`, or `RUN_COMMAND_PASS_ENV` (comma-separated, read through
 *   `Config` at each call). Nothing else of the host's environment (`DATABASE_URL`, tokens,
 *   webhook URLs, DSNs) reaches the command.
 * - Each run is marked with a unique `ETS_RUN_ID` in its environment; after the call, processes
 *   that left the group (`setsid`) but still carry the mark are killed too (`markedSweep.ts`).
 *   Limits: this needs `/proc` (Linux), and a process that clears its environment escapes.
 * - `timeout_sec` is capped at `RUN_COMMAND_MAX_TIMEOUT_SEC`; the tool's own timeout is that cap
 *   plus the kill grace, so the command's deadline always fires first and returns its output.
 *
 * A timed-out command is a result (`timed_out: true`, `exit_code: null`) with the output read
 * so far, as is a non-zero exit status: both are facts about the command, not tool failures.
 * This is no sandbox: the command runs with the host user's rights (the tool needs confirmation).
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Fs from "node:fs"
import { ToolError } from "../../../domain/errors.js"
import { defaultPath, WorkspacePath } from "../../../domain/WorkspacePath.js"
import { make } from "../../defineBuiltin.js"
import type { Tool } from "../../../domain/Tool.js"
import { allowedEnv } from "../../shared/secretEnv.js"
import { newRunMark, RUN_MARK_VARIABLE, sweepMarked } from "./markedSweep.js"
import { type Captured, DRAIN_AFTER_EXIT_MS, KILL_GRACE_MS, spawnGroup } from "./processGroup.js"

const TOOL = "run_command"

/** Bytes kept of each of stdout and stderr. */
export const RUN_COMMAND_MAX_OUTPUT_BYTES = 64 * 1024

/** The longest deadline a call may ask for, in seconds. */
export const RUN_COMMAND_MAX_TIMEOUT_SEC = 600

/** The deadline when the call names none, in seconds. */
export const RUN_COMMAND_DEFAULT_TIMEOUT_SEC = 60

/** The shell. */
const SHELL = "/bin/sh"

/** What `run_command` returns. */
export interface RunCommandOutput {
  /** The exit status; `null` when the command timed out or was ended by a signal. */
  readonly exit_code: number | null
  /** The signal that ended the shell, if one did. */
  readonly signal: string | null
  /** The deadline passed: the process group was killed. */
  readonly timed_out: boolean
  readonly stdout: string
  readonly stderr: string
}

const fail = (message: string) => new ToolError({ tool: TOOL, message })

/** A stream's text, with a closing note when it was cut. */
const shown = (name: string, captured: Captured): string =>
  captured.cut
    ? `${captured.text}\n[${name} cut at ${RUN_COMMAND_MAX_OUTPUT_BYTES} of ${captured.totalBytes} bytes: ` +
      `redirect it to a file (> out.txt) and read that with read_file, or filter it (| head, | grep)]`
    : captured.text

/** Refuses a working directory that is not one, with a clear message. */
const checkDirectory = (cwd: string): Effect.Effect<void, ToolError> =>
  Effect.tryPromise({
    try: () => Fs.promises.stat(cwd),
    catch: () => fail(`cwd ${JSON.stringify(cwd)} does not exist`)
  }).pipe(
    Effect.filterOrFail((stat) => stat.isDirectory(), () => fail(`cwd ${JSON.stringify(cwd)} is not a directory`)),
    Effect.asVoid
  )

/** The names the application passes on through configuration (`RUN_COMMAND_PASS_ENV=A,B`). */
const passEnvConfig = Config.String("RUN_COMMAND_PASS_ENV").pipe(
  Config.withDefault(""),
  Config.map((text) => text.split(",").map((name) => name.trim()).filter((name) => name !== ""))
)

/**
 * `passEnvConfig` read at each call: through the `ConfigProvider` the application provided, else
 * from the process environment as it is at the call (Effect 4's default provider reads the
 * environment once, at its first lookup, and keeps that snapshot).
 */
const configuredPassEnv = Effect.flatMap(Effect.context<never>(), (context) =>
  passEnvConfig.parse(
    Context.getOrUndefined(context, ConfigProvider.ConfigProvider) ??
      ConfigProvider.fromEnvRecord({ ...process.env })
  ))

/** What `makeRunCommand` takes. */
export interface RunCommandOptions {
  /** Environment variables passed on beyond the allow-list (e.g. `["NODE_ENV", "CI"]`). */
  readonly passEnv?: ReadonlyArray<string>
}

/** Builds `run_command`, passing `options.passEnv` on to every command. */
export const makeRunCommand = (options: RunCommandOptions = {}): Tool<never> =>
  make(TOOL, {
    description: "Run a shell command line (/bin/sh -c) in a workspace directory and return " +
      "{ exit_code, signal, timed_out, stdout, stderr }. stdin is empty; stdout and stderr are each cut at " +
      `${RUN_COMMAND_MAX_OUTPUT_BYTES / 1024} KiB. When the command ends, times out or is cancelled, every process ` +
      "it started (including background jobs) is killed; on Linux so is a process that left the group " +
      "(setsid) unless it also cleared its environment (without /proc, such a process is not found). Only an " +
      "allow-list of environment variables (PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG, LC_*, TZ, TMPDIR, ...) " +
      "and those the application names are passed on.",
    parameters: Schema.Struct({
      command: Schema.String.check(
        Schema.isMinLength(1),
        Schema.makeFilter((s: string) => !s.includes("\u0000") || "the command must not contain a NUL character", {
          jsonSchema: {}
        })
      ).annotate({ description: "The command line, run by /bin/sh -c (pipes, redirections and && work)" }),
      cwd: WorkspacePath.annotate({ description: "Directory to run in, relative to the workspace root" }).pipe(
        Schema.withDecodingDefaultType(Effect.sync(defaultPath(".")))
      ),
      timeout_sec: Schema.Number.check(Schema.isGreaterThan(0), Schema.isFinite()).annotate({
        description: `Deadline in seconds (at most ${RUN_COMMAND_MAX_TIMEOUT_SEC}; larger values are capped); ` +
          "past it every process of the command is killed"
      }).pipe(Schema.withDecodingDefaultType(Effect.succeed(RUN_COMMAND_DEFAULT_TIMEOUT_SEC)))
    }),
    requiresConfirmation: true,
    tags: ["shell", "ported"],
    // the command's own deadline fires first; this leaves room for the kill and the answer
    timeout: Duration.millis(RUN_COMMAND_MAX_TIMEOUT_SEC * 1000 + KILL_GRACE_MS + 5000),
    handler: ({ command, cwd, timeout_sec }) =>
      Effect.scoped(
        Effect.gen(function*() {
          yield* checkDirectory(cwd)
          const passEnv = yield* Effect.orElseSucceed(configuredPassEnv, () => [])
          const mark = newRunMark()
          // added before the group: finalizers run in reverse, so the sweep follows the group's kill
          yield* Effect.addFinalizer(() => sweepMarked(mark))
          const timeoutSec = Math.min(timeout_sec, RUN_COMMAND_MAX_TIMEOUT_SEC)
          const group = yield* spawnGroup({
            file: SHELL,
            args: ["-c", command],
            cwd,
            env: { ...allowedEnv(process.env, [...(options.passEnv ?? []), ...passEnv]), [RUN_MARK_VARIABLE]: mark },
            maxBytes: RUN_COMMAND_MAX_OUTPUT_BYTES
          }).pipe(Effect.mapError((error) => fail(`could not start ${SHELL}: ${error.message}`)))
          const ended = yield* Effect.timeoutOption(group.ended, Duration.millis(Math.round(timeoutSec * 1000)))
          // after an exit, output still in the pipes is read; after a timeout, what came is what is shown
          const { stderr, stdout } = yield* group.output(Option.isSome(ended) ? DRAIN_AFTER_EXIT_MS : 0)
          const output: RunCommandOutput = {
            exit_code: Option.isSome(ended) ? ended.value.code : null,
            signal: Option.isSome(ended) ? ended.value.signal : null,
            timed_out: Option.isNone(ended),
            stdout: shown("stdout", stdout),
            stderr: shown("stderr", stderr)
          }
          // closing the scope kills what is left of the group
          return output
        })
      )
    })

  /** `run_command` with the default allow-list (plus `RUN_COMMAND_PASS_ENV`). */
  export const runCommand: Tool<never> = makeRunCommand()
