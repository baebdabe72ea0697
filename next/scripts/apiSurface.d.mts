/** See `apiSurface.mjs`. */
import type ts from "typescript"

export interface Entry {
  readonly subpath: string
  readonly source: string
}

export interface Declaration {
  readonly file: string
  readonly name: string
  readonly node: ts.Node
  readonly nodes: ReadonlyArray<ts.Node>
  /** The first public name that reaches it: `effect-tool-system/mcp#McpBridge`. */
  readonly via: string
}

export declare const root: string
export declare const CATEGORIES: ReadonlyArray<string>
export declare const entries: (dir?: string) => Array<Entry>
export declare const tagsOf: (node: ts.Node) => Map<string, string>
export declare const publicDeclarations: (list?: ReadonlyArray<Entry>) => Map<string, Declaration>
export declare const surfaceProblems: (list?: ReadonlyArray<Entry>) => Array<string>
