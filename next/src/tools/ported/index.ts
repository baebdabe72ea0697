/**
 * The 46 ported tools, by category, in catalog order. `ToolSystem.layer` registers them by
 * default (`ported: false` leaves them out), as the original does.
 *
 * @since 0.1.0
 */
import { dataTools } from "./data/index.js"
import { editingTools } from "./editing/index.js"
import { gitTools } from "./git/index.js"
import { managingTools } from "./managing/index.js"
import { mediaTools } from "./media/index.js"
import { readingTools } from "./reading/index.js"
import { shellTools } from "./shell/index.js"
import { systemTools } from "./system/index.js"
import { textTools } from "./text/index.js"
import { webTools } from "./web/index.js"

export { dataTools, editingTools, gitTools, managingTools, mediaTools, readingTools, shellTools, systemTools, textTools, webTools }

/** Every ported tool. */
export const portedTools = [
  ...editingTools,
  ...managingTools,
  ...readingTools,
  ...dataTools,
  ...textTools,
  ...gitTools,
  ...shellTools,
  ...systemTools,
  ...webTools,
  ...mediaTools
] as const
