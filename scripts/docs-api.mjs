// @ts-check
/**
 * The API reference, `docs/api/`: generated from the sources by TypeDoc with
 * typedoc-plugin-markdown (`typedoc.json`: the package's four entries, one markdown page per
 * entry and per namespace, no source links, so that a page changes only when the API or its
 * documentation does).
 *
 *   npm run docs:api                 writes docs/api/
 *   npm run docs:api -- --check      fails when docs/api/ is not what the sources give, when a
 *                                    public declaration lacks @since or @category, or when an
 *                                    @example does not type-check; writes nothing
 *
 * Each `@example` of the reference, and each ```ts block of README.md, is type-checked as a
 * module of its own against the sources (`effect-tool-system` and its subpaths mapped onto
 * `src/`), with the project's compiler options; the examples are checked, not run.
 *
 * TypeDoc type-checks the library (~25-35 s of CPU here), so the check runs in the tree's CI
 * line (`npm run docs:api -- --check` in `.ci/run`), not in the fast lane; the tags alone are
 * also checked by test/scripts/apiSurface.slow.test.ts.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { parseArgs } from "node:util"
import * as td from "typedoc"
import ts from "typescript"
import { entries, root, surfaceProblems } from "./apiSurface.mjs"

const { values: flags } = parseArgs({ options: { check: { type: "boolean", default: false } } })
const committed = join(root, "docs/api")

/** Every file below `dir`, relative to it, sorted. @param {string} dir @returns {Array<string>} */
const filesBelow = (dir) =>
  !existsSync(dir) ? [] : readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort()

/**
 * The `@example` code blocks of every documented reflection (and of its signatures), each with
 * where it comes from.
 * @param {td.ProjectReflection} project
 * @returns {Array<{ from: string, code: string }>}
 */
const examplesOf = (project) =>
  Object.values(project.reflections).flatMap((reflection) =>
    (reflection.comment?.blockTags ?? [])
      .filter((tag) => tag.tag === "@example")
      .flatMap((tag, n) => {
        const text = td.Comment.combineDisplayParts(tag.content)
        const blocks = [...text.matchAll(/```(?:ts|typescript)?\n([\s\S]*?)```/g)].map((match) => match[1] ?? "")
        const from = reflection.getFriendlyFullName()
        if (blocks.length === 0) return [{ from: `${from} (example ${n + 1})`, code: "" }]
        return blocks.map((code, i) => ({ from: `${from} (example ${n + 1}${blocks.length > 1 ? `, block ${i + 1}` : ""})`, code }))
      })
  )

/**
 * The ```ts code blocks of README.md, each an example of its own (its other blocks are shell).
 * @returns {Array<{ from: string, code: string }>}
 */
const readmeExamples = () => {
  const text = readFileSync(join(root, "README.md"), "utf8")
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, i) => ({
    from: `README.md (ts block ${i + 1}, line ${text.slice(0, match.index).split("\n").length})`,
    code: match[1] ?? ""
  }))
}

/**
 * Type-checks each example as a module against the sources; one line per problem.
 * @param {Array<{ from: string, code: string }>} examples
 * @returns {Array<string>}
 */
const checkExamples = (examples) => {
  const config = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile)
  const { options } = ts.convertCompilerOptionsFromJson(config.config.compilerOptions, root)
  /** @type {Record<string, Array<string>>} */
  const paths = {}
  for (const { source, subpath } of entries()) {
    paths[subpath === "." ? "effect-tool-system" : `effect-tool-system${subpath.slice(1)}`] = [`./${source}`]
  }
  // the examples live (in memory only) inside the repository, so that packages resolve from node_modules
  const dir = join(root, "docs/api/.examples")
  /** @type {Map<string, string>} */
  const files = new Map(examples.map(({ code }, i) => [join(dir, `example${i}.ts`), `${code}\nexport {}\n`]))
  const host = ts.createCompilerHost({ ...options, noEmit: true, baseUrl: root, paths })
  const readFile = host.readFile.bind(host)
  const fileExists = host.fileExists.bind(host)
  host.readFile = (file) => files.get(file) ?? readFile(file)
  host.fileExists = (file) => files.has(file) || fileExists(file)
  const program = ts.createProgram([...files.keys()], { ...options, noEmit: true, baseUrl: root, paths }, host)
  const names = [...files.keys()]
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")
    const file = diagnostic.file
    if (file === undefined) return message
    const index = names.indexOf(file.fileName)
    const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0)
    const where = index === -1 ? relative(root, file.fileName) : examples[index]?.from
    return `${where}, line ${line + 1}: ${message}`
  })
}

/** Converts the sources and writes the reference to `out`; the examples' problems. @param {string} out */
const generate = async (out) => {
  const app = await td.Application.bootstrapWithPlugins({ options: join(root, "typedoc.json"), out })
  // a service's class (Effect 3's `Context.Tag`, Effect 4's `Context.Service`) has a constructor of `never` that no one calls: left out
  app.converter.on(td.Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const reflection of context.project.getReflectionsByKind(td.ReflectionKind.Constructor)) {
      if (!(reflection instanceof td.DeclarationReflection)) continue
      const signatures = reflection.signatures ?? []
      const uncallable = signatures.every((signature) =>
        (signature.parameters ?? []).some((parameter) => parameter.type?.toString() === "never")
      )
      if (signatures.length > 0 && uncallable) context.project.removeReflection(reflection)
    }
  })
  const project = await app.convert()
  if (project === undefined) throw new Error("TypeDoc could not convert the sources (see above)")
  await app.generateOutputs(project)
  if (app.logger.hasErrors()) throw new Error("TypeDoc reported errors (see above)")
  const found = [...examplesOf(project), ...readmeExamples()]
  console.log(`${found.length} @example and README blocks to type-check`)
  return checkExamples(found)
}

const problems = surfaceProblems()
if (!flags.check) {
  const examples = await generate(committed)
  problems.push(...examples)
} else {
  const out = mkdtempSync(join(tmpdir(), "docs-api-"))
  try {
    problems.push(...await generate(out))
    const fresh = filesBelow(out)
    const old = filesBelow(committed)
    for (const file of new Set([...fresh, ...old])) {
      if (!fresh.includes(file)) problems.push(`docs/api/${file}: not in the reference the sources give (remove it)`)
      else if (!old.includes(file)) problems.push(`docs/api/${file}: missing`)
      else if (readFileSync(join(out, file), "utf8") !== readFileSync(join(committed, file), "utf8")) {
        problems.push(`docs/api/${file}: differs from what the sources give`)
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}
if (problems.length > 0) {
  console.error(problems.join("\n"))
  console.error(flags.check ? "\ndocs/api is not up to date with the sources: run npm run docs:api, fix what it reports, and commit docs/api." : "")
  process.exitCode = 1
} else {
  console.log(flags.check ? "docs/api is up to date" : "docs/api written")
}
