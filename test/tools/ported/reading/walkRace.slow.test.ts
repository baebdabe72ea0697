/**
 * A race between the walk and the tree: a real child process swaps a directory inside the
 * workspace for a symbolic link to a directory outside it, back and forth in a tight loop,
 * while search_files, find_files and directory_tree walk the workspace, and while searches hand
 * their files to worker threads. No name or byte from outside may come back, and nothing may
 * hang. Bounded: about 1.5 s of calls each.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Result, Layer } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ToolSystem, Workspace } from "../../../../src/index.js"
import { readingTools } from "../../../../src/tools/ported/reading/index.js"
import { compileMatcher } from "../../../../src/tools/ported/reading/searchMatch.js"
import { searchTree } from "../../../../src/tools/ported/reading/searchTree.js"
import { makeWorkspace } from "./harness.js"

const RACE_MS = 1500

/** Swaps `place` (a directory) with `spare` (a symlink) until killed or 15 s have passed; prints "go" once. */
const SWAPPER = String.raw`
const fs = require("node:fs")
const [place, aside, spare] = process.argv.slice(1)
const stop = Date.now() + 15000
const mv = (a, b) => { try { fs.renameSync(a, b) } catch {} }
for (let n = 1; ; n++) {
  mv(place, aside)
  mv(spare, place)
  mv(place, spare)
  mv(aside, place)
  if (n === 1) process.stdout.write("go\n")
  if ((n & 255) === 0 && Date.now() > stop) break
}
`

let fixture: ReturnType<typeof makeWorkspace>

beforeAll(() => {
  fixture = makeWorkspace("walk-race-")
  const { outside, write, ws } = fixture
  for (let i = 0; i < 20; i++) write(`sub/inside${i}.txt`, "needle inside\n")
  for (let i = 0; i < 20; i++) Fs.writeFileSync(Path.join(outside, `secret${i}.txt`), "needle secret\n")
  // the same names as inside: a file opened by its path through the swapped link would be one of these
  for (let i = 0; i < 20; i++) Fs.writeFileSync(Path.join(outside, `inside${i}.txt`), "needle secret\n")
  Fs.symlinkSync(outside, Path.join(ws, "spare"))
})

afterAll(() => fixture.remove())

/** Starts the swapper for the test's scope (killed when it closes). */
const swapping = () => {
  const { ws } = fixture
  const place = Path.join(ws, "sub")
  return Effect.acquireRelease(
    Effect.callback<ChildProcess.ChildProcess>((resume) => {
      const child = ChildProcess.spawn(process.execPath, ["-e", SWAPPER, place, `${place}.aside`, Path.join(ws, "spare")], {
        stdio: ["ignore", "pipe", "inherit"]
      })
      child.stdout.once("data", () => resume(Effect.succeed(child)))
      child.once("error", (error) => resume(Effect.die(error)))
    }).pipe(Effect.timeout("10 seconds")),
    (child) =>
      Effect.callback<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGKILL")
      })
  )
}

describe("walking while a directory is swapped for a link to outside", () => {
  it.live("search_files, find_files and directory_tree never return anything from outside", () =>
    Effect.gen(function*() {
      yield* swapping()
      const tools = yield* ToolSystem
      const outputs: Array<string> = []
      const end = Date.now() + RACE_MS
      for (let i = 0; Date.now() < end; i++) {
        const [name, args] = [
          ["search_files", { pattern: "needle" }],
          ["find_files", { name_pattern: "*.txt" }],
          ["directory_tree", {}]
        ][i % 3] as [string, Record<string, unknown>]
        const result = yield* tools.execute(name, args).pipe(Effect.timeout("10 seconds"))
        outputs.push(`${result.output ?? ""}${result.error ?? ""}`)
      }
      if (process.env.SAFE_FS_REPORT === "1") process.stderr.write(`walk race: ${outputs.length} calls\n`)
      expect(outputs.length).toBeGreaterThan(3)
      for (const output of outputs) expect(output).not.toContain("secret")
      // some calls saw the directory in its place
      expect(outputs.some((output) => output.includes("needle inside") || output.includes("inside0.txt"))).toBe(true)
    }).pipe(
      Effect.provide(
        ToolSystem.layerNode({ builtins: false, tools: [...readingTools], workspace: Workspace.layerFixed(fixture.ws) })
      )
    ), { timeout: 30_000 })

  it.live.skipIf(process.platform !== "linux")("a search whose files go to worker threads never reads a file from outside", () =>
    Effect.gen(function*() {
      yield* swapping()
      const matcher = compileMatcher("needle", { regex: false, caseSensitive: true })
      if (Result.isFailure(matcher)) return yield* Effect.die(matcher.failure)
      const workspace = yield* Workspace
      const lines: Array<string> = []
      let calls = 0
      const end = Date.now() + RACE_MS
      while (Date.now() < end) {
        const found = yield* Effect.scoped(searchTree({
          directory: fixture.ws,
          shownDir: ".",
          matcher: matcher.success,
          glob: undefined,
          limit: 1000,
          maxFiles: 200_000,
          resolveLink: workspace.tryResolve,
          // every chunk to a worker that has room, from the first file on
          parallel: { workers: 2, minFiles: 0 }
        })).pipe(Effect.timeout("10 seconds"), Effect.orDie)
        lines.push(...found.lines)
        calls++
      }
      expect(calls).toBeGreaterThan(3)
      expect(lines.some((line) => line.includes("secret"))).toBe(false)
      expect(lines.some((line) => line.includes("needle inside"))).toBe(true)
    }).pipe(Effect.provide(Workspace.layerFixed(fixture.ws).pipe(Layer.provide(NodeServices.layer)))), { timeout: 30_000 })
})
