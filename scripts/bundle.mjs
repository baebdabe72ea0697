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
 *   trusts its directory, not the bundle's owner). The side bundles `cli.cjs` requires
 *   (`mcp-sdk.cjs`) run through a cache of their own. The
 *   launcher is CommonJS too: an ES module entry point costs Node its ES module loader first.
 * - `cli.cjs`: the command line, `src/cli/main.ts` and all it imports. `import.meta.url` in the
 *   sources is defined as the bundle's own URL.
 * - `undici.cjs`: undici (`@effect/platform-node/Undici`, which re-exports it), bundled by
 *   itself and required by `cli.cjs` on the first web request (`src/layers/UrlPolicy.ts`
 *   imports it then). A large part of the command line's code, which a start that never
 *   fetches would still read, hash and decode.
 * - `mcp-sdk.cjs`: the MCP SDK (`@modelcontextprotocol/*`, with zod, ajv, @hono/node-server,
 *   jose...), required by `cli.cjs` when the first of our MCP modules runs: the `mcp` command,
 *   or `--mcp-config`. Half of the command line's code, which `list` never runs (see `mcpSdk`
 *   below for what is in it and why).
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
  for (const name of mcpSdk.packages) if (!names.includes(name)) throw new Error(`${name} is no longer a dependency`)
  return names.filter((name) => !inlined.has(name)).flatMap((name) => [name, `${name}/*`])
}

/**
 * Modules the command line loads only on first use, each bundled into `dist/cli/{name}.cjs`
 * (see above): the file's name and the specifier the sources import.
 */
const sideBundles = [{ name: "undici", specifier: "@effect/platform-node/Undici" }]

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")

/**
 * The packages of the MCP side bundle, `mcp-sdk.cjs`: the ones our MCP modules
 * (`src/tools/mcp/*`) import, each with its subpaths. What they import in turn (zod, hono,
 * cross-spawn...) comes along. fast-deep-equal too: ajv bundles it, and in the command line
 * only our MCP modules import it besides.
 *
 * Why the SDK alone, and not our MCP modules with it: our MCP modules use effect and our
 * services, tags and classes, which `cli.cjs` holds. A side bundle with them would either hold
 * a second copy of them (a second Effect runtime, a second `ToolRegistry` class, and
 * `instanceof` across the two fails) or take each from `cli.cjs` through a list of what is
 * shared, which every new import in our MCP modules could outdate. These packages share
 * nothing with the rest of the command line: no module of ours, no effect. Our MCP modules
 * stay in `cli.cjs` (~70 KiB), which evaluates them only when one is imported (an `import()`
 * in the sources is a lazily run module in the bundle), and that is when they require
 * `mcp-sdk.cjs`.
 *
 * How: in `cli.cjs` each specifier of these packages is a one-line module,
 * `require("./mcp-sdk.cjs").modules[specifier]` (`mcpSdkPlugin`). `mcp-sdk.cjs` is one bundle
 * for all of them (`/client` and `/server` share the SDK's core, its error classes and
 * schemas, which must exist once) whose entry picks, for each specifier, the names the sources
 * import from it (`mcpSdkImports`, read with TypeScript's parser; esbuild tree-shakes the
 * rest): an object of those names, or, for a default import, the default itself (what
 * `cli.cjs`'s interop makes of a CommonJS module's `module.exports`). `checkSideBundles` fails
 * the build when `cli.cjs` holds the SDK or a package only our MCP modules use, or when a
 * module is bundled in both.
 */
const mcpSdk = {
  name: "mcp-sdk",
  packages: ["@modelcontextprotocol/server", "@modelcontextprotocol/client", "@modelcontextprotocol/node", "jose", "ajv", "fast-deep-equal"]
}

/** Whether `specifier` names one of the MCP side bundle's packages (or a subpath of one). */
const isMcpSdk = (specifier) => mcpSdk.packages.some((name) => specifier === name || specifier.startsWith(`${name}/`))

/**
 * What the sources import from each specifier of the MCP side bundle: `{ names, default }`,
 * type-only imports left out (they are erased). A namespace import or `export *` would need
 * every name of the package: the build fails on one, as on a default import beside named
 * ones (`modules[specifier]` is one value, which cannot be both).
 */
const mcpSdkImports = async () => {
  const { default: ts } = await import("typescript")
  const imports = new Map()
  const entryOf = (specifier) => {
    if (!imports.has(specifier)) imports.set(specifier, { names: new Set(), default: false })
    return imports.get(specifier)
  }
  const files = (await readdir(join(root, "src"), { recursive: true })).filter((f) => /\.m?ts$/.test(f) && !f.endsWith(".d.ts"))
  for (const file of files) {
    const text = await readFile(join(root, "src", file), "utf8")
    if (!mcpSdk.packages.some((name) => text.includes(`"${name}`))) continue
    const where = `src/${file}`
    for (const statement of ts.createSourceFile(file, text, ts.ScriptTarget.Latest).statements) {
      const specifier = statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : undefined
      if (specifier === undefined || !isMcpSdk(specifier)) continue
      if (ts.isImportDeclaration(statement)) {
        const clause = statement.importClause
        if (clause?.isTypeOnly === true) continue
        const entry = entryOf(specifier)
        if (clause?.name !== undefined) entry.default = true
        const bindings = clause?.namedBindings
        if (bindings !== undefined && ts.isNamespaceImport(bindings)) {
          throw new Error(`bundle: ${where} imports ${specifier} as a namespace: import its names (see mcpSdk)`)
        }
        for (const element of bindings?.elements ?? []) {
          if (!element.isTypeOnly) entry.names.add((element.propertyName ?? element.name).text)
        }
      } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) {
        const clause = statement.exportClause
        if (clause === undefined || !ts.isNamedExports(clause)) {
          throw new Error(`bundle: ${where} re-exports all of ${specifier}: name what it re-exports (see mcpSdk)`)
        }
        const entry = entryOf(specifier)
        for (const element of clause.elements) {
          if (!element.isTypeOnly) entry.names.add((element.propertyName ?? element.name).text)
        }
      }
    }
  }
  for (const [specifier, entry] of imports) {
    if (entry.default && entry.names.size > 0) {
      throw new Error(`bundle: the sources import both ${specifier}'s default and its names: cli.cjs gets one value per specifier (see mcpSdk)`)
    }
  }
  return imports
}

const sdkImports = await mcpSdkImports()

/** The specifiers `cli.cjs` takes from `mcp-sdk.cjs`, as the `cli.cjs` build met them. */
const mcpSpecifiers = new Set()

/** In `cli.cjs`, each MCP SDK specifier is `mcp-sdk.cjs`'s value for it, required when first imported. */
const mcpSdkPlugin = {
  name: "mcp-sdk",
  setup(build) {
    const filter = new RegExp(`^(?:${mcpSdk.packages.map(escapeRegExp).join("|")})(?:$|/)`)
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: "mcp-sdk" }))
    build.onLoad({ filter: /.*/, namespace: "mcp-sdk" }, (args) => {
      if (!sdkImports.has(args.path)) {
        throw new Error(`bundle: ${args.path} is imported in a way mcpSdkImports does not read (a dynamic import?)`)
      }
      mcpSpecifiers.add(args.path)
      return { contents: `module.exports = require("./${mcpSdk.name}.cjs").modules[${JSON.stringify(args.path)}]`, loader: "js" }
    })
    build.onResolve({ filter: /.*/, namespace: "mcp-sdk" }, (args) => ({ path: args.path, external: true }))
  }
}

/**
 * The entry of `mcp-sdk.cjs` (an ES module in Node's mode, as our sources are, so that a
 * default import of a CommonJS package is its `module.exports`): `modules`, for each specifier
 * `cli.cjs` asked for, the names the sources import from it, or its default.
 */
const mcpSdkEntry = () => {
  const specifiers = [...mcpSpecifiers].sort()
  if (specifiers.length === 0) throw new Error("bundle: cli.cjs imports none of the MCP SDK: is mcpSdkPlugin still needed?")
  const valueOf = (specifier, i) => {
    const entry = sdkImports.get(specifier)
    if (entry.default) return `m${i}.default`
    return `{ ${[...entry.names].sort().map((name) => `${JSON.stringify(name)}: m${i}[${JSON.stringify(name)}]`).join(", ")} }`
  }
  return [
    ...specifiers.map((specifier, i) => `import * as m${i} from ${JSON.stringify(specifier)}`),
    `export const modules = {`,
    ...specifiers.map((specifier, i) => `  ${JSON.stringify(specifier)}: ${valueOf(specifier, i)},`),
    `}`
  ].join("\n")
}

/**
 * In `cli.cjs`, each side-bundled module is a one-line module, `require("./{name}.cjs")` (as
 * for the MCP SDK): the sources' `import()` of it becomes a `require` when first run, which the
 * launcher runs through the code cache. Left external, the `import()` would stay one, loaded
 * by Node's ES module loader as CommonJS, whose namespace has only `default` (no `Agent` for
 * `UrlPolicy.ts`: every fetch of the built command line failed).
 */
const sideBundlePlugin = {
  name: "side-bundles",
  setup(build) {
    for (const { name, specifier } of sideBundles) {
      build.onResolve({ filter: new RegExp(`^${escapeRegExp(specifier)}$`) }, () => ({ path: name, namespace: "side-bundle" }))
    }
    build.onLoad({ filter: /.*/, namespace: "side-bundle" }, (args) => ({
      contents: `module.exports = require("./${args.path}.cjs")`,
      loader: "js"
    }))
    build.onResolve({ filter: /.*/, namespace: "side-bundle" }, (args) => ({ path: args.path, external: true }))
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

const cliBuild = esbuild.build({
  ...common,
  ...commonJs,
  entryPoints: { cli: join(root, "src/cli/main.ts"), main: join(root, "src/cli/launch.ts") },
  plugins: [sideBundlePlugin, mcpSdkPlugin]
})

const results = await Promise.all([
  cliBuild,
  esbuild.build({
    ...common,
    entryPoints: Object.fromEntries(sideBundles.map(({ name, specifier }) => [name, specifier])),
    format: "cjs",
    outExtension: { ".js": ".cjs" }
  }),
  // after cli.cjs: its build says which specifiers the entry needs
  cliBuild.then(() =>
    esbuild.build({
      ...common,
      // as cli.cjs: `import.meta.url` is the bundle's own
      ...commonJs,
      stdin: { contents: mcpSdkEntry(), resolveDir: root, sourcefile: `${mcpSdk.name}-entry.mjs` },
      outdir: undefined,
      outfile: join(outdir, `${mcpSdk.name}.cjs`)
    }).then((result) => {
      // a name the sources import that the package does not export is only a warning to esbuild
      if (result.warnings.length > 0) throw new Error(`bundle: ${mcpSdk.name}.cjs built with warnings (above)`)
      return result
    })
  ),
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

/** The modules (input files) bundled into one output file of `builds`, by its name. */
const modulesIn = (builds, fileName) => {
  const outputs = Object.assign({}, ...builds.map((r) => r.metafile.outputs))
  const found = Object.entries(outputs).find(([file]) => file.endsWith(`/${fileName}`))
  if (found === undefined) throw new Error(`bundle: no ${fileName} was built`)
  return new Set(Object.entries(found[1].inputs).filter(([, { bytesInOutput }]) => bytesInOutput > 0).map(([input]) => input))
}

/** Our MCP modules: the bridge, the server and what only they use (`cli.cjs` runs them only for MCP). */
const isOurMcpModule = (input) => /^src\/(?:tools\/mcp\/|services\/Mcp|layers\/Mcp)/.test(input)

/**
 * The package directories `cli.cjs` holds only for our MCP modules: none of their modules is
 * reached from the command line's entry but through one of ours. They would be read, hashed and decoded
 * by every start for the MCP code alone.
 */
const mcpOnlyPackages = (cliBuild, main) => {
  const inputs = cliBuild.metafile.inputs
  const reached = new Set(["src/cli/main.ts"])
  const stack = ["src/cli/main.ts"]
  while (stack.length > 0) {
    for (const { path, external } of inputs[stack.pop()]?.imports ?? []) {
      if (external || isOurMcpModule(path) || reached.has(path)) continue
      reached.add(path)
      stack.push(path)
    }
  }
  const needed = new Set([...reached].map(packageDir))
  return [...new Set([...main].map(packageDir))].filter((dir) => dir !== undefined && !needed.has(dir))
}

/**
 * Fails the build when `cli.cjs` holds the MCP SDK, or a package only our MCP modules use (a
 * new import of theirs: add its package to `mcpSdk.packages`), or when a module is bundled
 * both in `cli.cjs` and in a side bundle: two copies of its classes and state, which
 * `instanceof` and module-level caches do not survive (a package whose code a side bundle and
 * `cli.cjs` both need belongs in `cli.cjs` only, or in the side bundle only).
 */
const checkSideBundles = (cliBuild, builds) => {
  const main = modulesIn(builds, "cli.cjs")
  const sdkInMain = [...new Set([...main].map(packageDir))].filter((dir) => /node_modules\/@modelcontextprotocol\//.test(dir ?? ""))
  const mcpOnly = mcpOnlyPackages(cliBuild, main)
  for (const dirs of [sdkInMain, mcpOnly]) {
    if (dirs.length > 0) {
      throw new Error(`bundle: cli.cjs holds ${dirs.join(", ")} for the MCP code alone: it belongs in ${mcpSdk.name}.cjs (mcpSdk.packages)`)
    }
  }
  for (const name of [...sideBundles.map((b) => b.name), mcpSdk.name]) {
    const twice = [...modulesIn(builds, `${name}.cjs`)].filter((input) => main.has(input))
    if (twice.length > 0) throw new Error(`bundle: both cli.cjs and ${name}.cjs hold ${twice.slice(0, 10).join(", ")}`)
  }
}

const [cli, side, mcpSide, cliModules, library] = results
checkSideBundles(cli, [cli, side, mcpSide])
await writeNotices(
  join(outdir, "THIRD-PARTY-LICENSES.txt"),
  `The command line bundle (cli.cjs, ${[...sideBundles.map(({ name }) => name), mcpSdk.name].map((name) => `${name}.cjs`).join(", ")}, worker.js, pdfWorker.js)`,
  report([cli, side, mcpSide, cliModules])
)
await writeNotices(join(dist, "THIRD-PARTY-LICENSES.txt"), "The library bundle (the .js files of dist/)", report([library]))
