/**
 * The system tools: environment facts, the current time and a calculator. All read-only.
 * (`run_command`, in the catalog's "Shell and system" group, is in `ported/shell/`.)
 *
 * @since 0.1.0
 */
import { calculator } from "./calculator.js"
import { getCurrentTime } from "./currentTime.js"
import { getEnvironmentInfo } from "./environmentInfo.js"

export { calculator, getCurrentTime, getEnvironmentInfo }

/** The system tools, in catalog order. */
export const systemTools = [getEnvironmentInfo, getCurrentTime, calculator] as const
