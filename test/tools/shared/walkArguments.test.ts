/**
 * `shared/walkArguments.ts`: the patterns that would climb out of the walked directory (the
 * tools' words for a directory that cannot be walked are tested with each tool).
 */
import { describe, expect, it } from "@effect/vitest"
import { escapingPattern } from "../../../src/tools/shared/walkArguments.js"

describe("escapingPattern", () => {
  it("is true for absolute patterns, drive letters and any .. segment, also inside braces and lists", () => {
    for (const bad of ["/etc/*", "\\\\server\\x", "C:/x", "c:x", "..", "../x", "a/../b", "a\\..\\b", "{a,..}/x", "x/{..}", "a/.."]) {
      expect(escapingPattern(bad), bad).toBe(true)
    }
    for (const ok of ["*.ts", "src/**/*.md", "...", "..x", "x..", "a/..b/c", "{a,b}", ":x", "ab:c", "1:x"]) {
      expect(escapingPattern(ok), ok).toBe(false)
    }
  })
})
