/**
 * `make` for the library's own tools: `Tool.make`, except that the parameter JSON Schema is made
 * when the spec's `parameters` are first read, not as the module loads. A start that reads none
 * (the command line's `list`) skips making 52 of them; each is pinned by
 * `test/domain/toolSchemaSnapshots.test.ts`, so the error a bad one would raise is found there.
 * An application's tools keep `Tool.make`, whose bad schema throws where it is defined.
 *
 * @internal
 */
import type { Tool } from "../domain/Tool.js"
import type { MakeOptions } from "./define.js"
import { makeTool } from "./makeTool.js"

export type { Tool } from "../domain/Tool.js"

/** A builtin tool; see the module. @internal */
export const make = <A, I, O, E, R, OI = O>(name: string, options: MakeOptions<A, I, O, E, R, OI>): Tool<R> =>
  makeTool(name, options, "onFirstRead")
