/**
 * Whether this is StrykerJS's run (`vitest.stryker.config.ts` sets the variable). Tests that
 * feed a tool tens of megabytes to show its work is linear are skipped there: Stryker's
 * coverage instrumentation makes every line of the tool many times slower (text_stats on
 * 30 Mi characters: 400 s instead of 0.3 s), so they would time out every mutant they cover.
 */
export const underMutationTesting = process.env.EFFECT_TOOL_SYSTEM_MUTATION_RUN === "1"
