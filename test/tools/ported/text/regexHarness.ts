/**
 * What `regex.test.ts` and `regex.slow.test.ts` share: regex_extract through the executor, in an
 * empty temp workspace.
 */
import { textTools } from "../../../../src/tools/ported/text/index.js"
import { workspaceOf } from "../../../helpers/workspaceOf.js"
import { runner } from "../data/harness.js"

/**
 * The test file's empty workspace (`workspaceOf`: call it at the file's top level) and
 * `extract(args)`, regex_extract there.
 */
export const regexWorkspace = () => {
  const dirs = workspaceOf("ported-regex-", () => {}, false)
  const run = runner(textTools, () => dirs.ws)
  return { dirs, extract: (args: Record<string, unknown>) => run("regex_extract", args) }
}
