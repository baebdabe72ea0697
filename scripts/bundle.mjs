/**
 * Bundles the library into `dist/` and the command line into `dist/cli/`, each with the worker
 * scripts beside it.
 *
 *   node scripts/bundle.mjs [--dist DIR] [--analyze]     (run by `npm run build`, after tsc)
 *
 * The library: its four entries (`index.js`, `mcp.js`, `effect-ai.js`, `testing.js`, what the
 * package's `exports` name) and the chunks they share, ES modules side by side in `dist/`; the packages
 * stay external (effect and the others are the application's, resolved where it installed
 * them), but for three small CommonJS ones (`inlined`).
 * One module of ours per entry and shared chunk instead of ~80 is a tenth less start-up for
 * `import "effect-tool-system"` (`bench/startup.ts`). tsc's own output under `dist/` gives the
 * `.d.ts` files the `exports` point at; its modules are not packed (`files` in package.json).
 *
 * Why a bundle: run from tsc's output, the CLI loads ~700 modules (Schema alone brings all of
 * fast-check) and starts in 10x the time of `node -e 0`; one tree-shaken file
 * starts in a fraction of that (`bench/startup.ts`). Everything the CLI needs is inside it
 * (effect, @effect/*, semver, tinyglobby...), so the `bin` does not depend on which versions
 * of the peers the application installed.
 *
 * Files:
 * - `main.cjs`: the `bin`, `src/cli/launch.ts`: runs `cli.cjs` through V8's code cache
 *   (`src/cli/codeCache.ts`), which `vm.Script` offers to scripts, hence CommonJS (Node 22's
 *   own `module.enableCompileCache()` would do it too, but keeps no per-command cache and
 *   trusts its directory, not the bundle's owner). The
 *   launcher is CommonJS too: an ES module entry point costs Node its ES module loader first.
 * - `cli.cjs`: the command line, `src/cli/main.ts` and all it imports. `import.meta.url` in the
 *   sources is defined as the bundle's own URL.
 * - `undici.cjs`: undici (`@effect/platform-node/Undici`, which re-exports it), bundled by
 *   itself and required by `cli.cjs` on the first web request (`src/layers/UrlPolicy.ts`
 *   imports it then). A large part of the command line's code, which a start that never
 *   fetches would still read, hash and decode.
 * - `worker.js`, `pdfWorker.js`: the worker pools find their scripts beside the module that
 *   starts them (`new URL("./worker.js", import.meta.url)` in `sandbox/workerEntry.ts`,
 *   `new URL("./pdfWorker.js", import.meta.url)` in `pdf/workerScript.ts`). In the bundle that
 *   module is `cli.cjs`, so each worker is bundled beside it under that name. pdf.js and QuickJS
 *   stay external: they load their own data and WebAssembly files from their packages, and only
 *   the workers import them.
 * - `THIRD-PARTY-LICENSES.txt`: the licenses of the bundled packages.
 *
 * Our sources import each of effect's modules by itself (`import * as Effect from
 * "effect/Effect"`): through the barrel, esbuild would keep every export of each namespace.
 */
import * as esbuild from "esbuild"
import { existsSync } from "node:fs"
import { readdir, readFile, writeFile } from "node:fs/promises"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { commonJs } from "./commonJsBuild.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))
const { values: flags } = parseArgs({
  options: { dist: { type: "string", default: join(root, "dist") }, analyze: { type: "boolean", default: false } }
})
const dist = resolve(flags.dist)
const outdir = join(dist, "cli")

/** Loaded at run time from the installed packages, never bundled. */
const external = [
  "pdfjs-dist",
  "quickjs-emscripten",
  // imported only when the sources run (pdf/workerScript.ts transpiles pdfWorker.ts then)
  "typescript",
  // `RateLimiter.layerRedis` only (an optional peer); the command line never builds it
  "redis"
]

/**
 * Small CommonJS dependencies of the library bundled into it: the first CommonJS module a
 * process loads costs it Node's CommonJS loader (~15 ms at start-up), and an ES module of
 * ours does not. They keep no state an application could share with us.
 */
const inlined = new Set(["semver", "ipaddr.js", "picomatch"])

/** Every other package the library names (dependencies, peers) stays external: the application's copy is used. */
const libraryExternal = async () => {
  const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8"))
  const names = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies, ...pkg.devDependencies })
  for (const name of inlined) if (!names.includes(name)) throw new Error(`${name} is no longer a dependency`)
  return names.filter((name) => !inlined.has(name)).flatMap((name) => [name, `${name}/*`])
}

/**
 * Modules the command line loads only on first use, each bundled into `dist/cli/{name}.cjs`
 * (see above): the file's name and the specifier the sources import.
 */
const sideBundles = [{ name: "undici", specifier: "@effect/platform-node/Undici" }]

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")

/** Resolves each side-bundled module to its file beside `cli.cjs`, external to the main bundle. */
const sideBundlePlugin = {
  name: "side-bundles",
  setup(build) {
    for (const { name, specifier } of sideBundles) {
      build.onResolve({ filter: new RegExp(`^${escapeRegExp(specifier)}$`) }, () => ({ path: `./${name}.cjs`, external: true }))
    }
  }
}

/**
 * The library's entries (what the package's `exports` name) and the workers beside them. A
 * missing module fails the build: the package's `exports` would point at nothing.
 */
const libraryEntries = async () => {
  const entries = {
    index: "src/index.ts",
    mcp: "src/tools/mcp/index.ts",
    "effect-ai": "src/interop/effectAi.ts",
    testing: "src/testing.ts",
    worker: "src/tools/builtin/sandbox/worker.ts",
    pdfWorker: "src/tools/builtin/pdf/pdfWorker.ts"
  }
  const present = {}
  for (const [name, file] of Object.entries(entries)) {
    if (!existsSync(join(root, file))) throw new Error(`bundle: ${file} is missing: there would be no dist/${name}.js`)
    present[name] = join(root, file)
  }
  return present
}

const common = {
  absWorkingDir: root,
  outdir,
  bundle: true,
  platform: "node",
  target: "node22",
  minify: true,
  sourcemap: "linked",
  sourcesContent: false,
  legalComments: "none",
  external,
  metafile: true,
  logLevel: "warning"
}

const results = await Promise.all([
  esbuild.build({
    ...common,
    ...commonJs,
    entryPoints: { cli: join(root, "src/cli/main.ts"), main: join(root, "src/cli/launch.ts") },
    plugins: [sideBundlePlugin]
  }),
  esbuild.build({
    ...common,
    entryPoints: Object.fromEntries(sideBundles.map(({ name, specifier }) => [name, specifier])),
    format: "cjs",
    outExtension: { ".js": ".cjs" }
  }),
  esbuild.build({
    ...common,
    entryPoints: {
      worker: join(root, "src/tools/builtin/sandbox/worker.ts"),
      pdfWorker: join(root, "src/tools/builtin/pdf/pdfWorker.ts")
    },
    format: "esm"
  }),
  // the library: the workers beside the chunks, as `workerEntry.ts` and `workerScript.ts` look for them
  esbuild.build({
    ...common,
    outdir: dist,
    // readable where an application's stack trace points into it
    minify: false,
    splitting: true,
    format: "esm",
    external: await libraryExternal(),
    entryPoints: await libraryEntries(),
    chunkNames: "chunk-[hash]"
  })
])
/** The package directory of a bundled input (`node_modules/@scope/name/...`), or undefined for ours. */
const packageDir = (input) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1]

/** Prints each output's size (and with `--analyze` its packages); the package directories bundled. */
const report = (builds) => {
  const bundled = new Set()
  for (const [file, output] of Object.entries(Object.assign({}, ...builds.map((r) => r.metafile.outputs)))) {
    if (file.endsWith(".map")) continue
    console.log(`${file}  ${(output.bytes / 1024).toFixed(0)} KiB`)
    const byPackage = new Map()
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const dir = packageDir(input)
      if (dir !== undefined && bytesInOutput > 0) bundled.add(dir)
      const name = dir?.replace(/.*node_modules\//, "") ?? "(sources)"
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput)
    }
    if (flags.analyze) {
      for (const [name, bytes] of [...byPackage].sort((a, b) => b[1] - a[1])) {
        console.log(`  ${(bytes / 1024).toFixed(0).padStart(6)} KiB  ${name}`)
      }
    }
  }
  return bundled
}

/** Writes the licenses of the bundled packages beside the bundle. */
const writeNotices = async (file, what, bundled) => {
  const notices = []
  for (const dir of [...bundled].sort()) {
    const pkg = JSON.parse(await readFile(join(root, dir, "package.json"), "utf8"))
    const licenseFile = (await readdir(join(root, dir))).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f))
    if (licenseFile === undefined) throw new Error(`${pkg.name} has no license file to ship with the bundle`)
    const text = await readFile(join(root, dir, licenseFile), "utf8")
    notices.push(`${pkg.name}@${pkg.version} (${pkg.license})\n\n${text.trim()}\n`)
  }
  await writeFile(file, `${what} contains code of these packages.\n\n${notices.join(`\n${"-".repeat(72)}\n\n`)}`)
}

const [cli, side, cliModules, library] = results
await writeNotices(
  join(outdir, "THIRD-PARTY-LICENSES.txt"),
  `The command line bundle (cli.cjs, ${sideBundles.map(({ name }) => `${name}.cjs`).join(", ")}, worker.js, pdfWorker.js)`,
  report([cli, side, cliModules])
)
await writeNotices(join(dist, "THIRD-PARTY-LICENSES.txt"), "The library bundle (the .js files of dist/)", report([library]))
