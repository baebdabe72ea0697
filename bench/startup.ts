/**
 * Start-up: the built command line (`dist/cli/main.cjs`) and the library's import, each in a
 * fresh `node` process, measured side by side with their anchors in interleaved rounds (one run
 * of every case per round, so a busy machine slows them alike). Medians are compared.
 *
 * - `list` and `call read_file`, whole processes, against `node -e 0`: goal at most 3x. The
 *   executable keeps a V8 code cache per command beside its bundle, made by the command's
 *   first run (here the warm-up round); `list` is also measured with the cache turned off, as
 *   the first run after an install, or any run of a read-only install, starts.
 * - `import "effect-tool-system"` against `import "effect"`: goal at most 1.2x. Each process
 *   times its own `await import(...)`, in wall time and in CPU time (all threads): CPU time is
 *   the steadier on a busy machine, so the goal is read on it; the whole processes are printed
 *   too.
 *
 *   npm run build && npx tsx bench/startup.ts        (BENCH_ROUNDS=15 by default)
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { CODE_CACHE_ENV } from "../src/cli/codeCache.js"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const cli = path.join(root, "dist/cli/main.cjs")

if (!fs.existsSync(cli) || !fs.existsSync(path.join(root, "dist/index.js"))) {
  console.error("dist/ is incomplete: run `npm run build` first")
  process.exit(1)
}

const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ets-startup-")))
fs.writeFileSync(path.join(ws, "notes.txt"), "one\ntwo\nthree\n")

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly env?: Record<string, string>
}

/** A process that imports `specifier` and prints how long the import took: `{ wall, cpu }` in ms. */
const importOf = (specifier: string): Case => ({
  name: `import "${specifier}"`,
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
  list: { name: "cli list", args: [cli, "list"] },
  listUncached: { name: "cli list (no code cache)", args: [cli, "list"], env: { [CODE_CACHE_ENV]: "0" } },
  call: {
    name: "cli call read_file",
    args: [cli, "call", "read_file", JSON.stringify({ filepath: "notes.txt", max_lines: 2 }), "--workspace", ws]
  },
  effect: importOf("effect"),
  // a self-reference: resolved through the package's own `exports`, as a user's import is
  library: importOf("effect-tool-system")
} satisfies Record<string, Case>

type Name = keyof typeof cases
const importCases = ["effect", "library"] as const

/** One fresh process: its wall time, and what it printed. A failing case stops the bench. */
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

const names = Object.keys(cases) as Array<Name>
const wallTimes = Object.fromEntries(names.map((n) => [n, [] as Array<number>])) as Record<Name, Array<number>>
const imports = {
  effect: { wall: [] as Array<number>, cpu: [] as Array<number> },
  library: { wall: [] as Array<number>, cpu: [] as Array<number> }
}

for (const n of names) run(cases[n]) // warm-up: the file system cache, and the CLI's code cache
for (let round = 0; round < ROUNDS; round++) {
  for (const n of names) {
    const { ms, stdout } = run(cases[n])
    wallTimes[n].push(ms)
    if (n === "effect" || n === "library") {
      const timing: { wall: number; cpu: number } = JSON.parse(stdout)
      imports[n].wall.push(timing.wall)
      imports[n].cpu.push(timing.cpu)
    }
  }
}
fs.rmSync(ws, { recursive: true, force: true })

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
const med = Object.fromEntries(names.map((n) => [n, median(wallTimes[n])])) as Record<Name, number>
const fmt = (ms: number) => `${ms.toFixed(0).padStart(5)} ms`

console.log(`Start-up, median of ${ROUNDS} interleaved rounds (min in brackets), node ${process.version}, load ${os.loadavg()[0]?.toFixed(1)}\n`)
console.log("Whole processes")
for (const n of names) {
  console.log(`  ${cases[n].name.padEnd(34)} ${fmt(med[n])}  (${Math.min(...wallTimes[n]).toFixed(0)} ms)`)
}
console.log("Import alone, timed inside the process: wall, CPU")
for (const n of importCases) {
  console.log(`  ${cases[n].name.padEnd(34)} ${fmt(median(imports[n].wall))}  ${fmt(median(imports[n].cpu))}`)
}

const line = (label: string, value: number, goal?: number) =>
  console.log(
    `  ${label.padEnd(48)} ${value.toFixed(2)}x${goal === undefined ? "" : `  (goal <= ${goal}x: ${value <= goal ? "met" : "NOT met"})`}`
  )

console.log("\nRatios")
line("cli list / node -e 0", med.list / med.node, 3)
line("cli call read_file / node -e 0", med.call / med.node, 3)
line("cli list, no code cache / node -e 0", med.listUncached / med.node)
line("import library / import effect, CPU", median(imports.library.cpu) / median(imports.effect.cpu), 1.2)
line("import library / import effect, wall", median(imports.library.wall) / median(imports.effect.wall))
line("import library / import effect, whole process", med.library / med.effect)
