import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as vm from "node:vm"
import { root } from "../../src/cli/commands.js"
import { CACHED_COMMANDS, cacheDisabled, cacheFileOf, CODE_CACHE_ENV, digestOf, readCache, writeCache } from "../../src/cli/codeCache.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const dir = makeTempDirSync("ets-code-cache-")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

let n = 0
/** A fresh bundle file (a small script) in its own directory. */
const bundleFile = () => {
  const sub = path.join(dir, String(n++))
  fs.mkdirSync(sub)
  const file = path.join(sub, "cli.cjs")
  fs.writeFileSync(file, "(function () { return 6 * 7 })")
  return file
}

describe("the CLI's code cache", () => {
  it("has a cache per command of the command line, exactly", () => {
    expect(root.subcommands.flatMap((group) => group.commands.map((command) => command.name)).sort()).toEqual(
      [...CACHED_COMMANDS].sort()
    )
  })

  it("is one file per Node version and architecture beside the bundle; EFFECT_TOOL_SYSTEM_CODE_CACHE=0 turns it off", () => {
    expect(cacheFileOf("/pkg/dist/cli/cli.cjs")).toBe(`/pkg/dist/cli/cli.cjs.${process.version}-${process.arch}.cache`)
    expect(cacheFileOf("/pkg/dist/cli/cli.cjs", "call")).toBe(`/pkg/dist/cli/cli.cjs.call.${process.version}-${process.arch}.cache`)
    // not a command: the shared cache (a typo, an option, a path cannot name a file)
    for (const other of ["lst", "--version", "../list", "", "list/x"]) {
      expect(cacheFileOf("/pkg/dist/cli/cli.cjs", other)).toBe(cacheFileOf("/pkg/dist/cli/cli.cjs"))
    }
    expect(cacheDisabled({ [CODE_CACHE_ENV]: "0" })).toBe(true)
    expect(cacheDisabled({})).toBe(false)
  })

  it("a cache written for a bundle is read back, whole, and V8 accepts it", () => {
    const bundle = bundleFile()
    const source = fs.readFileSync(bundle, "utf8")
    const data = new vm.Script(source, { filename: bundle }).createCachedData()
    const cacheFile = cacheFileOf(bundle)
    const digest = digestOf(source)
    expect(readCache(cacheFile, bundle, digest)).toBeUndefined()
    expect(writeCache(cacheFile, bundle, digest, data)).toBe(true)
    expect(fs.readdirSync(path.dirname(bundle)).sort()).toEqual([path.basename(bundle), path.basename(cacheFile)].sort())
    const read = readCache(cacheFile, bundle, digest)
    expect(read?.equals(data)).toBe(true)
    const script = new vm.Script(source, { filename: bundle, ...(read === undefined ? {} : { cachedData: read }) })
    expect(script.cachedDataRejected).toBe(false)
  })

  it("a cache that others could have written is not read", () => {
    const bundle = bundleFile()
    const cacheFile = cacheFileOf(bundle)
    const digest = digestOf("source")
    fs.writeFileSync(cacheFile, Buffer.concat([digest, Buffer.from("data")]))
    fs.chmodSync(cacheFile, 0o666)
    expect(readCache(cacheFile, bundle, digest)).toBeUndefined()
    fs.chmodSync(cacheFile, 0o620)
    expect(readCache(cacheFile, bundle, digest)).toBeUndefined()
    fs.chmodSync(cacheFile, 0o644)
    expect(readCache(cacheFile, bundle, digest)?.toString()).toBe("data")
  })

  it.skipIf(process.getuid?.() !== 0)("a cache of another owner than the bundle's is not read, and nobody but the bundle's owner writes one", () => {
    const bundle = bundleFile()
    const cacheFile = cacheFileOf(bundle)
    const digest = digestOf("source")
    fs.writeFileSync(cacheFile, Buffer.concat([digest, Buffer.from("data")]))
    fs.chownSync(cacheFile, 4321, 4321)
    expect(readCache(cacheFile, bundle, digest)).toBeUndefined()
    fs.chownSync(cacheFile, 0, 0)
    expect(readCache(cacheFile, bundle, digest)?.toString()).toBe("data")
    fs.rmSync(cacheFile)
    fs.chownSync(bundle, 4321, 4321) // a package installed by another user, run by this one (root here)
    expect(writeCache(cacheFile, bundle, digest, Buffer.from("x"))).toBe(false)
    expect(fs.existsSync(cacheFile)).toBe(false)
  })

  it("a directory that is not a file is not read; a write that cannot happen leaves nothing behind", () => {
    const bundle = bundleFile()
    const cacheFile = cacheFileOf(bundle)
    const digest = digestOf("source")
    fs.mkdirSync(cacheFile)
    expect(readCache(cacheFile, bundle, digest)).toBeUndefined()
    expect(writeCache(cacheFile, bundle, digest, Buffer.from("x"))).toBe(false) // rename onto a directory fails
    expect(fs.readdirSync(path.dirname(bundle)).filter((f) => f.endsWith(".tmp"))).toEqual([])
    expect(writeCache(path.join(dir, "missing", "cli.cjs.cache"), bundle, digest, Buffer.from("x"))).toBe(false)
  })

  it("a cache made for another source of the same length is not used (V8 alone would run the old code)", () => {
    const bundle = bundleFile()
    const cacheFile = cacheFileOf(bundle)
    const before = "(function () { return 111 })"
    const after = "(function () { return 222 })"
    const stale = new vm.Script(before, { filename: bundle }).createCachedData()
    // what the digest guards against: V8 checks the length only
    expect(new vm.Script(after, { filename: bundle, cachedData: stale }).runInThisContext()()).toBe(111)
    expect(writeCache(cacheFile, bundle, digestOf(before), stale)).toBe(true)
    expect(readCache(cacheFile, bundle, digestOf(after))).toBeUndefined()
    expect(readCache(cacheFile, bundle, digestOf(before))?.equals(stale)).toBe(true)
  })

  it.skipIf(process.getuid?.() !== 0)("is not written into a directory of another owner, even beside a bundle of this one", () => {
    const bundle = bundleFile()
    const elsewhere = path.join(dir, `other-${n++}`)
    fs.mkdirSync(elsewhere)
    fs.chownSync(elsewhere, 4321, 4321)
    const cacheFile = path.join(elsewhere, "cli.cjs.cache")
    expect(writeCache(cacheFile, bundle, digestOf("source"), Buffer.from("x"))).toBe(false)
    expect(fs.readdirSync(elsewhere)).toEqual([])
  })

  it("does not write through a link planted at its temp file's name, and removes the link", () => {
    const bundle = bundleFile()
    const cacheFile = cacheFileOf(bundle)
    const victim = path.join(dir, `victim-${n++}`)
    fs.writeFileSync(victim, "keep")
    const temp = `${cacheFile}.${process.pid}.tmp`
    fs.symlinkSync(victim, temp)
    expect(writeCache(cacheFile, bundle, digestOf("source"), Buffer.from("x"))).toBe(false)
    expect(fs.readFileSync(victim, "utf8")).toBe("keep")
    expect(fs.existsSync(temp) || fs.existsSync(cacheFile)).toBe(false)
  })

  it("closes the cache file it opened, whether it uses it or not", () => {
    const bundle = bundleFile()
    const cacheFile = cacheFileOf(bundle)
    const digest = digestOf("source")
    fs.writeFileSync(cacheFile, Buffer.concat([digest, Buffer.from("data")]))
    const open = () => fs.readdirSync("/proc/self/fd").length
    const before = open()
    for (let i = 0; i < 20; i++) {
      expect(readCache(cacheFile, bundle, digest)?.toString()).toBe("data")
      expect(readCache(cacheFile, bundle, digestOf("other"))).toBeUndefined()
    }
    expect(open()).toBeLessThan(before + 5)
  })

  it("where the process has no user id (no process.getuid, as on Windows) writes no cache", () => {
    const bundle = bundleFile()
    const cacheFile = cacheFileOf(bundle)
    const saved = Object.getOwnPropertyDescriptor(process, "getuid")
    Object.defineProperty(process, "getuid", { configurable: true, writable: true, value: undefined })
    try {
      expect(writeCache(cacheFile, bundle, digestOf("source"), Buffer.from("data"))).toBe(false)
    } finally {
      if (saved !== undefined) Object.defineProperty(process, "getuid", saved)
    }
    expect(fs.existsSync(cacheFile)).toBe(false)
    expect(writeCache(cacheFile, bundle, digestOf("source"), Buffer.from("data"))).toBe(true)
  })
})
