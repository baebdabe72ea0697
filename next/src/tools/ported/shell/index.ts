/**
 * The shell tool: `run_command`.
 *
 * @since 0.1.0
 */
import { makeRunCommand, runCommand } from "./runCommand.js"

export { makeRunCommand, runCommand }

/** The shell tools, in catalog order. */
export const shellTools = [runCommand] as const
