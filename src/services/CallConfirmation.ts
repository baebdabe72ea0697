/**
 * Confirmation decided at the moment of an effect. A tool that is not `requiresConfirmation`
 * may, in some calls, have the effect of one that is: create a file (`append_to_file` on a
 * missing file), overwrite or destroy one (`move_file`, `copy_file`, `download_file` onto an
 * existing file), or put an executable file in place. Such a tool declares `asksConfirmation`
 * (when it asks), and its handler asks `confirmEffect` right where it would act, so that no
 * check made earlier can be outrun by the file system.
 *
 * The executor sets `CurrentCallConfirmation` for each call of such a tool (the handler's fiber
 * inherits it). Whether the call is confirmed is the call's `ConfirmationGate`'s answer about
 * the tool as one that requires confirmation, so a gate that confirms every call
 * (`ConfirmationGate.layerAutoConfirm`) confirms these effects too. An unconfirmed call ends as
 * a call the gate stops up front: `CONFIRMATION_REQUIRED`, `confirmed: false`, and the
 * `ToolCallHandler` and the MCP server ask a person and call again with `confirm: true`.
 *
 * @since 0.6.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { ConfirmationRequired } from "../domain/errors.js"

/** The confirmation of the running call, as the executor sets it. */
export interface CallConfirmation {
  /** The tool of the call: a handler run for another tool finds its call unconfirmed. */
  readonly tool: string
  /** Whether the call's `ConfirmationGate` confirms it; asked only when an effect needs it. */
  readonly confirmed: Effect.Effect<boolean>
}

/**
 * The running call's confirmation; `undefined` outside a call of a tool that asks (its handler
 * run on its own, say), where nothing is confirmed. The executor provides it around the call
 * (`Effect.provideService`); it is Effect 3's fiber ref `currentCallConfirmation`.
 */
export const CurrentCallConfirmation: Context.Reference<CallConfirmation | undefined> = Context.Reference<
  CallConfirmation | undefined
>("effect-tool-system/CallConfirmation/CurrentCallConfirmation", { defaultValue: () => undefined })

/** Whether the running call of `tool` is confirmed (`false` outside one). */
export const isConfirmed = (tool: string): Effect.Effect<boolean> =>
  Effect.flatMap(
    CurrentCallConfirmation,
    (call) => call !== undefined && call.tool === tool ? call.confirmed : Effect.succeed(false)
  )

/**
 * Passes when the running call of `tool` is confirmed; otherwise fails with
 * `ConfirmationRequired` carrying `reason`, what the call would do ("would create notes.txt").
 * Call it where the effect happens, then act with a primitive that cannot do more than was
 * confirmed (no-create, no-replace).
 */
export const confirmEffect = (tool: string, reason: string): Effect.Effect<void, ConfirmationRequired> =>
  Effect.flatMap(
    isConfirmed(tool),
    (confirmed) => confirmed ? Effect.void : Effect.fail(new ConfirmationRequired({ tool, reason }))
  )
