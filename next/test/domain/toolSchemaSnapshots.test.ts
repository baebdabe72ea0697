/**
 * Pins every built-in tool's exported schema, in every export format, byte for byte: one
 * committed file per format under `__snapshots__/toolSchemas/`, each tool (name@version, sorted
 * by name, then version) with what `exportSpec` gives for it, as pretty JSON.
 *
 * The tools are the ones an application gets: the registry `ToolSystem.layerNode()` fills (the
 * 6 builtins and the 46 ported tools), listed as the `docs` command lists them, every version of
 * each. The port to Effect 4, whose `JSONSchema.make` writes schemas differently, must keep
 * these files identical: a change here is a change to what every model is sent. Under
 * `CI=true` vitest writes no missing snapshot, so a missing file fails too.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import compare from "semver/functions/compare.js"
import type { ExportFormat } from "../../src/domain/exports.js"
import { exportSpec, formats } from "../../src/domain/exports.js"
import type { RegisteredTool } from "../../src/domain/Tool.js"
import { ToolRegistry } from "../../src/services/ToolRegistry.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

/** How many tools `ToolSystem.layerNode()` registers: a tool dropped from the catalog changes it. */
const CATALOG_SIZE = 52

interface Catalog {
  /** Every registered version of every tool, by name, then version (oldest first). */
  readonly tools: ReadonlyArray<RegisteredTool>
  /** The registry's own export of the latest versions, per format (what `export --format` prints). */
  readonly exported: ReadonlyMap<ExportFormat, ReadonlyArray<unknown>>
}

const readCatalog = Effect.gen(function*() {
  const registry = yield* ToolRegistry
  // as the docs command lists them (deprecated ones too), then every version of each
  const latest = yield* registry.list({ includeDeprecated: true })
  const tools: Array<RegisteredTool> = []
  for (const { name } of latest) {
    const versions = [...(yield* registry.versions(name))].sort(compare)
    for (const version of versions) tools.push(yield* registry.get(name, version))
  }
  const exported = new Map<ExportFormat, ReadonlyArray<unknown>>()
  for (const format of formats) exported.set(format, yield* registry.export(format, { includeDeprecated: true }))
  return { tools, exported } satisfies Catalog
})

const ws = makeTempDirSync("tool-schemas-")
let catalog: Catalog = { tools: [], exported: new Map() }

beforeAll(async () => {
  catalog = await Effect.runPromise(
    readCatalog.pipe(Effect.provide(ToolSystem.layerNode({ workspace: Workspace.layerFixed(ws) })))
  )
})

afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

const snapshotOf = (format: ExportFormat): string =>
  `${
    JSON.stringify(
      catalog.tools.map((tool) => ({ tool: `${tool.name}@${tool.version}`, export: exportSpec(tool.spec, format) })),
      null,
      2
    )
  }\n`

describe("the built-in tools' exported schemas", () => {
  it("are those of the 52 tools of ToolSystem.layerNode(), sorted by name", () => {
    const names = catalog.tools.map((t) => t.name)
    expect(new Set(names).size).toBe(CATALOG_SIZE)
    expect(names).toEqual([...names].sort())
  })

  it.each(formats)("as %s, are the committed snapshot", async (format) => {
    // the registry's export path (the CLI's `export`) gives the same as exportSpec on the latest versions
    const latest = catalog.tools.filter((tool, i) => catalog.tools[i + 1]?.name !== tool.name)
    expect(catalog.exported.get(format)).toEqual(latest.map((tool) => exportSpec(tool.spec, format)))
    await expect(snapshotOf(format)).toMatchFileSnapshot(`./__snapshots__/toolSchemas/${format}.json`)
  })
})
