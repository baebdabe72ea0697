/**
 * `search_files` and `find_files` on a big tree, beside the command-line tools, in one run (the
 * same tree, cases, runs, warm-up and order as the Effect 3 line's `bench/search.ts`, tag
 * effect3): a generated tree of 50,000 files in 500 folders (in a temp
 * directory, removed at the end); `search_files` for a literal that occurs in 1% of the files
 * beside `grep -rn`, and `find_files` by a `*.md` glob (1% of the files) beside `find -name`.
 * Both tools are asked for every match (`max_results` above the count), so they do the same work
 * as the commands. Goal: search_files <= 1.0x grep -rn, find_files <= 2x find. The ratios are of
 * wall times (medians). CPU times are printed beside them (the commands' from `/proc/self/stat`,
 * the tools' from `process.cpuUsage`, worker threads included); the load average is printed
 * before and after.
 *
 * The tools run through the real executor, bundled by esbuild with the bench (as
 * `bench/executor.ts`: the library as it ships, without tsx's keep-names wrappers; the search
 * workers are inline sources, so the bundle starts them as the package does):
 *
 *   esbuild bench/search.ts --bundle --platform=node --format=esm --packages=external --target=node22 \
 *     --outfile=bench/dist/search.mjs --log-level=warning && node bench/dist/search.mjs
 *
 * BENCH_RUNS=5 (the median of that many runs of each), BENCH_WARMUP=3 (rounds not counted).
 *
 * Measured beside the Effect 3 line's (tag effect3; Node 20, from its dist/), two runs each, load
 * 7-10 on 2 shared CPUs: search_files/grep 1.52x, 1.43x here (effect3 1.72x, 1.76x);
 * find_files/find 1.17x, 1.36x (effect3 1.25x, 1.62x); search_files' CPU 765 and 723 ms a search here, 1210 and 1020 ms there.
 */
import { ManagedRuntime } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ToolExecutor } from "../src/services/ToolExecutor.js"
import { ToolSystem } from "../src/services/ToolSystem.js"
import { Workspace } from "../src/services/Workspace.js"
import { readingTools } from "../src/tools/ported/reading/index.js"
import { searchParallelism } from "../src/tools/ported/reading/searchFiles.js"

const FOLDERS = 500
const FILES_PER_FOLDER = 100
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
/**
 * Rounds before the measured runs (page cache, JIT). A process's first three or four searches
 * are slower than the ones after: measured (on the Effect 3 line) with BENCH_WARMUP=1 BENCH_RUNS=10, 334, 298 and 354 ms,
 * then 235–273 ms (grep: 257–289 ms throughout). The goal is about the steady state; run with
 * BENCH_WARMUP=0 to see the first searches.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3)
const LITERAL = "NEEDLE_7f3a9c"

/** Writes the tree: 1% of the files hold the literal, 1% are `.md`. */
const generate = (dir: string): void => {
  const line = (i: number) => `const value${i} = compute(alpha, beta, gamma) // ordinary source text, line ${i}\n`
  const body = Array.from({ length: 20 }, (_, i) => line(i)).join("")
  const hit = `${body}// the ${LITERAL} literal is here\n${line(21)}`
  for (let d = 0; d < FOLDERS; d++) {
    const folder = path.join(dir, `dir${String(d).padStart(3, "0")}`)
    fs.mkdirSync(folder)
    for (let f = 0; f < FILES_PER_FOLDER; f++) {
      const i = d * FILES_PER_FOLDER + f
      fs.writeFileSync(path.join(folder, `file${String(i).padStart(5, "0")}${i % 100 === 37 ? ".md" : ".ts"}`), i % 100 === 13 ? hit : body)
    }
  }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

/** CPU time (ms) of the children waited for, from `/proc/self/stat` (clock ticks of 10 ms), or NaN elsewhere. */
const childrenCpu = (): number => {
  try {
    const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? []
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return Number.NaN
  }
}

interface Timed {
  readonly ms: number
  readonly cpu: number
  readonly lines: number
}

const command = (cmd: string, args: ReadonlyArray<string>, cwd: string): Timed => {
  const cpu = childrenCpu()
  const start = performance.now()
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  const ms = performance.now() - start
  if (r.error !== undefined || (r.status !== 0 && r.status !== 1)) throw new Error(`${cmd} failed: ${r.error ?? r.stderr}`)
  return { ms, cpu: childrenCpu() - cpu, lines: r.stdout.split("\n").filter((l) => l !== "").length }
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(" ")

const main = async () => {
  process.stdout.write(`tools bundled from src/ (Effect 4, Node ${process.versions.node})\n`)
  // the machine may be shared: the load it had says how far to trust the numbers
  process.stdout.write(`load average: ${loadAverage()} (${os.cpus().length} cores)\n`)
  const tree = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "bench-search-")))
  const system = ManagedRuntime.make(
    ToolSystem.layerNode({ builtins: false, tools: [...readingTools], workspace: Workspace.layerFixed(tree) })
  )
  try {
    const started = performance.now()
    generate(tree)
    process.stdout.write(
      `tree: ${FOLDERS * FILES_PER_FOLDER} files in ${FOLDERS} folders, generated in ${((performance.now() - started) / 1000).toFixed(1)} s\n`
    )
    const executor = await system.runPromise(ToolExecutor)
    const tool = async (name: string, args: Record<string, unknown>): Promise<Timed> => {
      const cpu = process.cpuUsage()
      const start = performance.now()
      const r = await system.runPromise(executor.execute(name, args))
      const ms = performance.now() - start
      const used = process.cpuUsage(cpu)
      if (!r.success) throw new Error(`${name} failed: ${r.error}`)
      return { ms, cpu: (used.user + used.system) / 1000, lines: String(r.output).split("\n").filter((l) => !l.startsWith("(")).length }
    }
    const workerCounts: Array<number> = []
    const cases = {
      grep: () => Promise.resolve(command("grep", ["-rn", LITERAL, "."], tree)),
      search: () => {
        // what the call decides from the load it meets
        workerCounts.push(searchParallelism().workers)
        return tool("search_files", { pattern: LITERAL, max_results: 1000 })
      },
      find: () => Promise.resolve(command("find", [".", "-name", "*.md"], tree)),
      findFiles: () => tool("find_files", { name_pattern: "*.md", max_results: 1000 })
    }
    const times: Record<keyof typeof cases, Array<number>> = { grep: [], search: [], find: [], findFiles: [] }
    const cpus: Record<keyof typeof cases, Array<number>> = { grep: [], search: [], find: [], findFiles: [] }
    // the warm-up rounds (page cache, JIT), then the runs, interleaved so that load hits all alike
    for (let run = -WARMUP; run < RUNS; run++) {
      for (const [name, go] of Object.entries(cases) as Array<[keyof typeof cases, () => Promise<Timed>]>) {
        const { cpu, lines, ms } = await go()
        const expected = FOLDERS * FILES_PER_FOLDER / 100
        if (lines !== expected) throw new Error(`${name} found ${lines} lines, expected ${expected}`)
        if (run >= 0) {
          times[name].push(ms)
          cpus[name].push(cpu)
        }
      }
    }
    const row = (label: string, name: keyof typeof cases) =>
      `${label.padEnd(40)} ${median(times[name]).toFixed(1).padStart(8)} ms  (median of ${RUNS}; CPU ${
        median(cpus[name]).toFixed(0)
      } ms)\n`
    const ratio = (label: string, a: ReadonlyArray<number>, b: ReadonlyArray<number>, goal: number) => {
      const r = median(a) / median(b)
      return `${label.padEnd(40)} = ${r.toFixed(2)}x  (goal <= ${goal}x) ${r <= goal ? "met" : "NOT met"}\n`
    }
    process.stdout.write(
      row(`grep -rn ${LITERAL}`, "grep") +
        row(`search_files "${LITERAL}"`, "search") +
        row("find -name '*.md'", "find") +
        row("find_files \"*.md\"", "findFiles") +
        `load average after: ${loadAverage()}; search_files started ${workerCounts.join(", ")} worker thread(s) in its runs\n` +
        `runs (ms): search_files ${times.search.map((t) => t.toFixed(0)).join(" ")}; grep ${times.grep.map((t) => t.toFixed(0)).join(" ")}\n` +
        "\n" +
        ratio("search_files / grep -rn", times.search, times.grep, 1) +
        ratio("find_files / find -name", times.findFiles, times.find, 2)
    )
  } finally {
    await system.dispose()
    fs.rmSync(tree, { recursive: true, force: true })
  }
}

main()
