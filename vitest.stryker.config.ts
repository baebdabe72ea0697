/**
 * The vitest configuration StrykerJS runs (`stryker.config.mjs`): the project's tests, less
 * those no mutant can ever fail because they run the library in another process (the packed
 * tarball, the examples and the CLI started through `tsx`: Stryker activates a mutant in the
 * test process only), and without the closing-line reporter.
 */
import { defineConfig } from "vitest/config"

/**
 * StrykerJS's vitest runner (9.6.1) runs a mutant's covering tests by a name pattern it builds from
 * each test's suite and test names joined by spaces ("ToolRegistry list is sorted"); vitest 5 matches
 * the pattern against the names joined by " > " ("ToolRegistry > list is sorted"), so no test in a
 * `describe` would ever match: every mutant covered only there would run no test and be reported
 * Survived. The pattern the runner sets is read here with each space also matching " > " (a test
 * whose own name has the suite's words in it may then run too: one more test, never one fewer).
 */
const strykerTestNames = {
  name: "stryker-test-names",
  configureVitest({ project }: { project: { config: { testNamePattern?: RegExp | string | undefined } } }) {
    let pattern = project.config.testNamePattern
    Object.defineProperty(project.config, "testNamePattern", {
      configurable: true,
      enumerable: true,
      get: () => pattern,
      set: (value: RegExp | string | undefined) => {
        pattern = value instanceof RegExp ? new RegExp(value.source.replaceAll(" ", "(?: > | )"), value.flags) : value
      }
    })
  }
}

export default defineConfig({
  plugins: [strykerTestNames],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [
      "**/node_modules/**",
      // packs the tarball and installs it into a fresh project
      "test/package/**",
      // run the CLI executable (and its bundle) as a child process
      "test/cli/executable.slow.test.ts",
      "test/cli/bundle.slow.test.ts",
      // builds the launcher (src/cli/launch.ts, which Stryker leaves out) and runs it as a child process
      "test/cli/launch.test.ts",
      // serves the registry from the CLI started as a child process
      "test/tools/mcp/server.slow.test.ts",
      // asserts which modules an import loads: meaningless where modules stay loaded (below)
      "test/layers/RateLimiterRedis.import.slow.test.ts"
    ],
    // One test runner process runs every mutant: the modules stay loaded between runs (a mutant
    // is switched on at run time), which saves importing Effect and the test files again for
    // each mutant (25 s a mutant otherwise on a loaded 2-core machine).
    isolate: false,
    // run before each test file: emulates `process.chdir` (Stryker runs the test files in a worker thread)
    setupFiles: ["test/helpers/sharedGraphSetup.ts"],
    // read by test/helpers/portedRunner.ts (`underMutationTesting`): the huge-input tests are skipped
    env: { EFFECT_TOOL_SYSTEM_MUTATION_RUN: "1" },
    // the initial run is every test file in one thread, on a machine others load too: the slowest
    // tests (read_pdf's max_chars passes: 17 s alone at load 9) go past 30 s there
    testTimeout: 120_000,
    hookTimeout: 60_000
  }
})
