/**
 * The shell tool: `run_command`.
 *
 * @since 0.1.0
 */
import { runCommand } from "./runCommand.js"

export { runCommand }

/** The shell tools, in catalog order. */
export const shellTools = [runCommand] as const
