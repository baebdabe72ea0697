/**
 * A workspace escape in one call of a model's turn: the `PathTraversalError` defect of
 * `ToolCallHandler` in its default `pathTraversal: "defect"`, naming the call (its tool and its
 * id) so that the turn's failure says which call escaped. It is a `PathTraversalError`, so
 * `pathTraversalOf` and `isPathTraversal` find it.
 *
 * @since 0.3.0
 */
import { PathTraversalError } from "./errors.js"
import { showName, showText } from "./shownText.js"

/** How much of a call id is quoted in the message. */
const MAX_SHOWN_ID = 100

/** A `PathTraversalError` raised by the call `callId` of the tool `tool`. */
export class CallPathTraversal extends PathTraversalError {
  /** The tool the model called. */
  readonly tool: string
  /** The model's id of the call (`tool_call_id`, `tool_use` id). */
  readonly callId: string

  constructor(error: PathTraversalError, call: { readonly tool: string; readonly callId: string }) {
    super({ path: error.path, workspace: error.workspace, reason: error.reason })
    this.tool = call.tool
    this.callId = call.callId
  }

  override get message(): string {
    return `${super.message}, in the call "${showText(this.callId, MAX_SHOWN_ID)}" of "${showName(this.tool)}"`
  }
}
