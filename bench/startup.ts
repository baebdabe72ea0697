/**
 * Start-up: the built command line (`dist/cli/main.cjs`) and the library's
 * import, each in a fresh `node` process on this Node (22, `process.execPath`), against their
 * anchors. Each ratio comes from rounds that alternate the two sides (which goes first
 * alternates too, as `paired` in `bench/executor.ts`): the median of the rounds' ratios, so a
 * busy machine (other tenants) weighs on both sides alike.
 *
 * - `--version` and `list`, whole processes, against `node -e 0`: goal at most 3x. The
 *   executable keeps a V8 code cache per command beside its bundle, made by the command's
 *   first run (here the warm-up); `list` is also measured with the cache turned off (no goal),
 *   as the first run after an install, or any run of a read-only install, starts.
 * - `import("<the package>")` (a self-reference, resolved through the package's own `exports`
 *   to `dist/index.js`, as a user's import is) against `import("effect")`: goal at most 1.1x.
 *   Each process times its own `await import(...)`, in wall time and in CPU time (all
 *   threads); CPU time is the steadier on a busy machine, so the goal is read on it. The whole
 *   processes are printed too, and the modules each import loads (counted in one more run each,
 *   through a loader hook, which would change the timing).
 *
 *   npm run build && npx tsx bench/startup.ts        (BENCH_ROUNDS=15 by default)
 *
 * `BENCH_CLI=DIR` measures the command line of another build (`node scripts/bundle.mjs --dist
 * DIR`, its `DIR/cli/main.cjs`): two builds compared in turn under the same load.
 *
 * First run (11 rounds, load 7 on 2 shared CPUs, so the anchors are slow too: node -e 0 took
 * ~183 ms): --version 2.13x, list 2.89x, list without the code cache 4.01x; the import 1.03x
 * in CPU (1.01x wall): `dist/index.js` loads 198 ES modules, `effect`'s barrel 254.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { CODE_CACHE_ENV } from "../src/cli/codeCache.js"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const cli = path.resolve(root, process.env.BENCH_CLI ?? "dist", "cli/main.cjs")
/** The package's own name: `import(name)` from its directory resolves through its `exports`. */
const packageName: string = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).name

if (!fs.existsSync(cli) || !fs.existsSync(path.join(root, "dist/index.js"))) {
  console.error("dist/ is incomplete: run `npm run build` first")
  process.exit(1)
}

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly env?: Record<string, string>
}

/** A process that imports `specifier` and prints how long the import took: `{ wall, cpu }` in ms. */
const importOf = (specifier: string, note = ""): Case => ({
  name: `import("${specifier}")${note}`,
  args: [
    "--input-type=module",
    "-e",
    `const c = process.cpuUsage(), t = performance.now()
await import(${JSON.stringify(specifier)})
const wall = performance.now() - t, used = process.cpuUsage(c)
console.log(JSON.stringify({ wall, cpu: (used.user + used.system) / 1000 }))`
  ]
})

const cases = {
  node: { name: "node -e 0", args: ["-e", "0"] },
  version: { name: "cli --version", args: [cli, "--version"] },
  list: { name: "cli list", args: [cli, "list"] },
  listUncached: { name: "cli list (no code cache)", args: [cli, "list"], env: { [CODE_CACHE_ENV]: "0" } },
  effect: importOf("effect"),
  library: importOf(packageName, " (dist/index.js)")
} satisfies Record<string, Case>

/** One fresh process: its wall time in ms, and what it printed. A failing case stops the bench. */
const run = (c: Case): { ms: number; stdout: string } => {
  const start = process.hrtime.bigint()
  const result = spawnSync(process.execPath, c.args, {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, WORKSPACE_ROOT: "", ...c.env }
  })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (result.status !== 0) {
    console.error(`${c.name} exited ${result.status}: ${result.stderr}`)
    process.exit(1)
  }
  return { ms, stdout: result.stdout }
}

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** A measure of one process: each number it yields is one side's value in a round. */
type Measure = (c: Case) => Record<string, number>
const wholeProcess: Measure = (c) => ({ process: run(c).ms })
const importTimes: Measure = (c) => {
  const { ms, stdout } = run(c)
  const timing: { wall: number; cpu: number } = JSON.parse(stdout)
  return { process: ms, wall: timing.wall, cpu: timing.cpu }
}

/**
 * The two sides, in `ROUNDS` rounds that alternate which goes first. Prints each side's medians
 * (ms) and returns, per measure, the median of the rounds' ratios (subject / anchor).
 */
const paired = (anchor: Case, subject: Case, measure: Measure): Record<string, number> => {
  const a: Array<Record<string, number>> = []
  const b: Array<Record<string, number>> = []
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      a.push(measure(anchor))
      b.push(measure(subject))
    } else {
      b.push(measure(subject))
      a.push(measure(anchor))
    }
  }
  const keys = Object.keys(a[0]!)
  for (const [c, xs] of [[anchor, a], [subject, b]] as const) {
    const parts = keys.map((k) => `${k} ${median(xs.map((x) => x[k]!)).toFixed(1).padStart(6)} ms`)
    console.log(`  ${c.name.padEnd(52)} ${parts.join("  ")}`)
  }
  return Object.fromEntries(keys.map((k) => [k, median(b.map((x, i) => x[k]! / a[i]![k]!))]))
}

/** How many modules a process loads importing `specifier` (ES modules, and CommonJS ones). */
const modulesLoadedBy = (specifier: string): { esm: number; cjs: number } => {
  const script = `import { register } from "node:module"
import { MessageChannel } from "node:worker_threads"
const { port1, port2 } = new MessageChannel()
const urls = new Set()
port1.on("message", (url) => urls.add(url))
register("data:text/javascript," + encodeURIComponent(\`
let port
export function initialize(data) { port = data.port }
export async function load(url, context, next) { port.postMessage(url); return next(url, context) }\`), { data: { port: port2 }, transferList: [port2] })
const { createRequire } = await import("node:module")
const before = new Set(Object.keys(createRequire(import.meta.url).cache))
await import(${JSON.stringify(specifier)})
await new Promise((resolve) => setTimeout(resolve, 50))
port1.close()
const cjs = Object.keys(createRequire(import.meta.url).cache).filter((f) => !before.has(f)).length
console.log(JSON.stringify({ esm: [...urls].filter((u) => !u.startsWith("node:")).length, cjs }))`
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" })
  if (r.status !== 0) return { esm: Number.NaN, cjs: Number.NaN }
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!)
}

const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ets-startup-")))
fs.writeFileSync(path.join(ws, "notes.txt"), "one\ntwo\nthree\n")

for (const c of Object.values(cases)) run(c) // warm-up: the file system cache, and the CLI's code caches

console.log(`Start-up, ${ROUNDS} alternating rounds per pair (medians), node ${process.version}, load ${os.loadavg()[0]?.toFixed(1)}, ${path.relative(root, cli)}\n`)
console.log("Whole processes")
const version = paired(cases.node, cases.version, wholeProcess)
const list = paired(cases.node, cases.list, wholeProcess)
const listUncached = paired(cases.node, cases.listUncached, wholeProcess)
console.log("Import (whole process; the import alone timed inside it: wall, CPU)")
const imports = paired(cases.effect, cases.library, importTimes)
fs.rmSync(ws, { recursive: true, force: true })

const loaded = { effect: modulesLoadedBy("effect"), library: modulesLoadedBy(packageName) }
console.log("Modules loaded by the import")
console.log(`  import("effect")${" ".repeat(38)} ${loaded.effect.esm} ES modules, ${loaded.effect.cjs} CommonJS`)
console.log(`  import("${packageName}")${" ".repeat(Math.max(1, 46 - packageName.length))} ${loaded.library.esm} ES modules, ${loaded.library.cjs} CommonJS`)

const line = (label: string, value: number, goal?: number) =>
  console.log(
    `  ${label.padEnd(48)} ${value.toFixed(2)}x${goal === undefined ? "" : `  (goal <= ${goal}x: ${value <= goal ? "met" : "NOT met"})`}`
  )

console.log("\nRatios (median of the rounds' ratios)")
line("cli --version / node -e 0", version.process!, 3)
line("cli list / node -e 0", list.process!, 3)
line("cli list, no code cache / node -e 0", listUncached.process!)
line("import library / import effect, CPU", imports.cpu!, 1.1)
line("import library / import effect, wall", imports.wall!)
line("import library / import effect, whole process", imports.process!)
