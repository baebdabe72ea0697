#!/usr/bin/env node
/**
 * The `effect-tool-system` executable. Shipped bundled into `dist/cli/cli.cjs`, which the
 * `bin` (`launch.ts`, `dist/cli/main.cjs`) runs; see `scripts/bundle.mjs`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Platform from "./platform.js"
import { runCommandLine } from "./program.js"
import { runCli } from "./run.js"

runCli(
  Effect.flatMap(runCommandLine(process.argv), (code) =>
    Effect.sync(() => {
      process.exitCode = code
    })).pipe(Effect.provide(Platform.layer))
)
