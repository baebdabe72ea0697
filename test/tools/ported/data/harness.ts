/**
 * Running ported data, text and system tools through the real executor (`runner`, from
 * `test/helpers/portedRunner.ts`), in a temp workspace.
 */
import { Cause, Exit, Option, Result } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { PathTraversalError } from "../../../../src/index.js"
export { runner } from "../../../helpers/portedRunner.js"

/** Writes a file under `root`, creating its directories. */
export const writeIn = (root: string) => (rel: string, content: string | Uint8Array) => {
  const file = Path.join(root, rel)
  Fs.mkdirSync(Path.dirname(file), { recursive: true })
  Fs.writeFileSync(file, content)
}

/** The `PathTraversalError` an execution died with, if any. */
export const traversalOf = (exit: Exit.Exit<unknown, unknown>): Option.Option<PathTraversalError> => {
  if (!Exit.isFailure(exit)) return Option.none()
  const defect = Cause.findDefect(exit.cause)
  return Result.isSuccess(defect) && defect.success instanceof PathTraversalError ? Option.some(defect.success) : Option.none()
}
