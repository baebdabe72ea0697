// @ts-check
const run = (process.env.MUTATE_RUN ?? "mutation").replace(/[^\w.-]/g, "_")

/**
 * StrykerJS, the project's mutation tester: `npm run mutate` (every file of `src/`, against the
 * `testFiles` below), or one folder with `npm run mutate -- --mutate 'src/domain/**\/*.ts'`.
 * Incremental: a rerun tests only the mutants whose code or covering tests changed since the
 * last run (reports/mutation/incremental.json); the report is reports/mutation/index.html.
 * Too slow for every CI run (src/domain alone: about 30 minutes on a shared 2-core machine);
 * run it after a change to the core. The TypeScript checker needs a tree that type-checks:
 * while one does not, add `--checkers ""` (type errors then count as killed or survived).
 *
 * Equivalent mutants (no test could ever tell them apart from the original) are listed in
 * mutation-ledger.json, never marked or described in the source (its comments say why the code is
 * as it is): each entry names the file, the mutators, the trimmed text of the mutant's line and the
 * reason (scripts/mutation-ledger.mjs). Stryker reports such a mutant Survived, and
 * `npm run mutate:summary` counts it as equivalent, out of the score; an entry of `all` mutators
 * has its whole statement ignored by the `ledger` ignorer (scripts/mutation-ignorer.mjs, below).
 * An equivalent mutant that shares its line and mutator with a killable one is an `unmarked`
 * entry: it stays Survived, and the ledger explains it. After editing a line that has an entry,
 * update the entry (test/scripts/mutationLedger.test.ts fails on one that finds no line);
 * `npm run mutate:marks` checks the entries against the mutants Stryker makes today.
 *
 * A run over one folder is named with `MUTATE_RUN` (default `mutation`): its report and its
 * incremental file go to reports/<name>/, so the runs of several folders neither overwrite one
 * another's reports nor throw away one another's incremental results:
 *   MUTATE_RUN=ported-text npm run mutate -- --mutate 'src/tools/ported/text/**\/*.ts' \
 *     --testFiles 'test/tools/ported/text/**\/*.test.ts'
 * `npm run mutate:summary` adds the reports up into one table per folder (see
 * scripts/mutation-summary.mjs, which also keeps each file's counts in mutation-scores.json).
 * The files no run has measured yet are estimated from a seeded sample of their lines (a run of
 * `--mutate "$(node scripts/mutation-sample.mjs lines)"` named `sample-*`, then
 * `node scripts/mutation-sample.mjs estimate reports/sample-<name>/mutation.json`).
 *
 * @type {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
export default {
  packageManager: "npm",
  testRunner: "vitest",
  // each mutant runs the test files that hold its covering tests, and no other
  vitest: { configFile: "vitest.stryker.config.ts", related: false },
  checkers: ["typescript"],
  // mutation-ledger.json's `all` entries: their statements' mutants are reported ignored, with the entry's reason
  appendPlugins: ["./scripts/mutation-ignorer.mjs"],
  ignorers: ["ledger"],
  // src only (no tests, benches or scratch files): a mutant that does not type-check is not run
  tsconfigFile: "tsconfig.build.json",
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  // each mutant runs only the tests that reached its code in the initial run
  coverageAnalysis: "perTest",
  // a mutant in module-level code (a constant, a tool's description) would need every test
  // file reloaded per mutant; they are reported as ignored. One reached both there (or in a
  // `beforeAll`, where a `layer(...)` suite builds its layer) and in some test's body is run
  // against those tests only: what a suite's shared layer builds counts for none of its tests,
  // so a check of it belongs in a test that builds it (test/tools/mcp/proxyFlags.test.ts);
  // elsewhere the score is a lower bound
  // A module-level constant that a function reads (safeFsNode.ts's `O_NOFOLLOW ?? 0`) can also be
  // reported Survived: the shared module graph (vitest.stryker.config.ts's `isolate: false`) computed
  // it once, before the mutant was switched on. Apply such a mutant by hand before calling it real.
  ignoreStatic: true,
  mutate: [
    "src/**/*.ts",
    // the sandbox's attack catalogs: test data, not behaviour
    "!src/tools/builtin/sandbox/escapeVectors.ts",
    "!src/tools/builtin/sandbox/denialOfServiceVectors.ts",
    "!src/tools/builtin/sandbox/hostReachVectors.ts",
    "!src/tools/builtin/sandbox/vectorKinds.ts",
    // re-exports only
    "!src/index.ts",
    // run only inside worker threads: Stryker switches a mutant on in the test process, and a
    // worker's copy of the module never sees it, so every mutant there would survive
    "!src/tools/builtin/pdf/pdfWorker.ts",
    "!src/tools/builtin/sandbox/worker.ts",
    "!src/tools/builtin/sandbox/runGuest.ts",
    "!src/tools/builtin/sandbox/prelude.ts",
    // the Worker's side of workerOutput.ts (both pools' Workers import it; its test runs it in a plain Worker)
    "!src/tools/builtin/sandbox/workerPrint.ts",
    // the executable's entry points: they run only as the CLI's own process (test/cli/executable.slow.test.ts
    // starts main.ts, test/cli/launch.test.ts builds launch.ts and starts it), never in the test process;
    // the commands they run are src/cli/program.ts's, tested in-process
    "!src/cli/launch.ts",
    "!src/cli/main.ts",
    // run_command's sweep signals every process of this user whose environment holds the run's
    // mark: a mutant of its match (`holdsMark` made `true`) signals every process of the user, which
    // on a machine where the tests run as root ended the mutation run and everything else on the
    // machine (twice, 2026-12-07). Its tests (test/tools/ported/shell/setsidEscape.test.ts) run as usual
    "!src/tools/ported/shell/markedSweep.ts"
  ],
  // The test files of the initial run: every one vitest.stryker.config.ts includes (each mutant
  // then runs those of its tests that reached it). A run over one folder is much shorter with
  // the tests of that folder only, e.g.
  //   npm run mutate -- --mutate 'src/layers/**/*.ts' --testFiles 'test/layers/**/*.test.ts,test/domain/**/*.test.ts'
  //   npm run mutate -- --mutate 'src/tools/builtin/**/*.ts' --testFiles 'test/tools/builtin/**/*.test.ts'
  // (`--testFiles` takes one comma-separated list), each with its own MUTATE_RUN name (above).
  // The engine (executor, gates, registry, workspace):
  //   MUTATE_RUN=gates-engine npm run mutate -- --mutate 'src/layers/ToolExecutor.ts,...' \
  //     --testFiles 'test/layers/**/*.test.ts,test/domain/**/*.test.ts,test/services/**/*.test.ts'
  testFiles: [
    "test/domain/**/*.test.ts",
    "test/interop/**/*.test.ts",
    "test/layers/**/*.test.ts",
    "test/services/**/*.test.ts",
    "test/tools/**/*.test.ts",
    "test/cli/**/*.test.ts"
  ],
  incremental: true,
  incrementalFile: `reports/${run}/incremental.json`,
  // two cores shared by several people
  concurrency: 1,
  // the initial run is the whole suite (less vitest.stryker.config.ts's exclusions) in one thread
  dryRunTimeoutMinutes: 40,
  timeoutMS: 10_000,
  timeoutFactor: 2,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `reports/${run}/index.html` },
  jsonReporter: { fileName: `reports/${run}/mutation.json` },
  // with `--reporters ...,event-recorder`: each tested mutant as it is tested, a file apiece, so a run
  // stopped early still says which mutants it killed (the JSON report is written only at the end)
  eventReporter: { baseDir: `reports/${run}/events` },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: ".stryker-tmp",
  ignorePatterns: ["dist", "reports", ".stryker-tmp*", "stryker.*.config.mjs"],
  cleanTempDir: true
}
