/**
 * The git tools, run through `effect/process`'s `ChildProcess` with an argv in the workspace root
 * (see `gitCommand.ts` for what keeps a repository's configuration from running programs).
 *
 * @since 0.1.0
 */
import { gitBranches, gitDiff, gitLog, gitShow, gitStatus } from "./readTools.js"
import { gitAdd, gitCheckout, gitCommit } from "./writeTools.js"

export { gitAdd, gitBranches, gitCheckout, gitCommit, gitDiff, gitLog, gitShow, gitStatus }

/** The git tools, in catalog order. */
export const gitTools = [gitStatus, gitDiff, gitLog, gitShow, gitBranches, gitAdd, gitCommit, gitCheckout] as const
