/**
 * The public surface (`scripts/apiSurface.mjs`): every declaration a user reaches through one
 * of the package's entries has a description, `@since` and `@category`, none is `@internal`,
 * and every other export of a module an entry re-exports from is documented or `@internal`.
 * Parsed, not type-checked, so it stays a fast test; the API reference (`docs/api/`) is
 * checked against the sources by `npm run docs:api -- --check` in `.ci/run`. The checker
 * finds each kind of problem in a stand-in entry (`test/fixtures/apiSurface/`).
 */
import { describe, expect, it } from "@effect/vitest"
import { entries, surfaceProblems } from "../../scripts/apiSurface.mjs"

describe("the public surface", () => {
  it("has four entries, read from package.json's exports", () => {
    expect(entries()).toEqual([
      { subpath: ".", source: "src/index.ts" },
      { subpath: "./mcp", source: "src/tools/mcp/index.ts" },
      { subpath: "./effect-ai", source: "src/interop/effectAi.ts" },
      { subpath: "./testing", source: "src/testing.ts" }
    ])
  })

  it("finds each kind of problem in a stand-in entry", () => {
    const at = (file: string) => `test/fixtures/apiSurface/${file}`
    expect(surfaceProblems([{ subpath: "./fixture", source: at("index.ts") }])).toEqual([
      `${at("index.ts")}: Undocumented: no description (public as effect-tool-system/fixture#Undocumented)`,
      `${at("index.ts")}: Undocumented: no @since x.y.z (public as effect-tool-system/fixture#Undocumented)`,
      `${at("index.ts")}: Undocumented: no @category (public as effect-tool-system/fixture#Undocumented)`,
      `${at("undocumented.ts")}: noCategory: no @category (public as effect-tool-system/fixture#Undocumented.noCategory)`,
      `${at("undocumented.ts")}: Shared: no description (public as effect-tool-system/fixture#Undocumented.Shared)`,
      `${at("undocumented.ts")}: Shared: no @since x.y.z (public as effect-tool-system/fixture#Undocumented.Shared)`,
      `${at("undocumented.ts")}: Shared: no @category (public as effect-tool-system/fixture#Undocumented.Shared)`,
      `${at("module.ts")}: leaked: public but marked @internal (public as effect-tool-system/fixture#leaked)`,
      `${at("module.ts")}: untagged: no @since x.y.z (public as effect-tool-system/fixture#untagged)`,
      `${at("module.ts")}: untagged: @category misc is not one of constants, constructors, conversions, decoding, errors, exports, guards, layers, models, running, schemas, services, tools, utils`,
      `${at("module.ts")}: forgotten: exported but neither documented (@since, @category) nor @internal`
    ])
  })
})
