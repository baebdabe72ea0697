import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { VERSION } from "../src/version.js"

describe("VERSION", () => {
  it("is package.json's version (what --version prints and MCP announces)", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "package.json"), "utf8"))
    expect(VERSION).toBe(pkg.version)
  })
})
