/**
 * The tests of `apiSurface.test.ts` that spend the most CPU (about 0.4 s or more each on a quiet machine:
 * real processes, worker starts, large inputs), kept in the slow lane so that the fast lane's
 * tests stay well under its 1 s CPU bound even on a loaded machine.
 *
 * The public surface (`scripts/apiSurface.mjs`): every declaration a user reaches through one
 * of the package's entries has a description, `@since` and `@category`, none is `@internal`,
 * and every other export of a module an entry re-exports from is documented or `@internal`.
 * Parsed, not type-checked, so it stays a fast test; the API reference (`docs/api/`) is
 * checked against the sources by `npm run docs:api -- --check` in `.ci/run`. The checker
 * finds each kind of problem in a stand-in entry (`test/fixtures/apiSurface/`).
 */
import { describe, expect, it } from "@effect/vitest"
import { surfaceProblems } from "../../scripts/apiSurface.mjs"

describe("the public surface", () => {

  it("every export of every entry, and of the modules they re-export, has @since and @category (or is @internal)", () => {
    expect(surfaceProblems()).toEqual([])
  })
})
