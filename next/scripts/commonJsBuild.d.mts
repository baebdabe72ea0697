import type { BuildOptions } from "esbuild"

/** See `commonJsBuild.mjs`. */
export declare const commonJs: Pick<BuildOptions, "format" | "outExtension" | "define" | "banner">
