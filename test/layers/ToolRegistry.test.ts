/**
 * The in-memory `ToolRegistry`: listing (sorted, deprecated tools left out unless asked for),
 * lookups by name and range with their `ToolNotFound` hints, unregistering and deprecating
 * (also of names it does not know), definition checks at registration, and the context a
 * registered tool's handler runs in (the caller's services, the tool's captured ones, the
 * caller's span when no tracer is installed).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Result, Layer, Option, Schema, Tracer } from "effect"
import * as fs from "node:fs"
import { InvalidToolDefinition, ToolNotFound } from "../../src/domain/errors.js"
import { ToolExecutor } from "../../src/services/ToolExecutor.js"
import { type ListOptions, ToolRegistry } from "../../src/services/ToolRegistry.js"
import { ToolSystem } from "../../src/services/ToolSystem.js"
import { Workspace } from "../../src/services/Workspace.js"
import * as Tool from "../../src/tools/define.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const plain = (name: string, options: { readonly version?: string; readonly tags?: ReadonlyArray<string> } = {}) =>
  Tool.make(name, {
    description: `The ${name} tool`,
    parameters: Schema.Struct({}),
    readOnly: true,
    ...options,
    handler: () => Effect.succeed(`${name}@${options.version ?? "1.0.0"}`)
  })

const registry = Layer.fresh(ToolRegistry.layerEmpty)

const register = (...tools: ReadonlyArray<Tool.Tool>) =>
  Effect.flatMap(ToolRegistry, (r) => Effect.forEach(tools, (tool) => r.register(tool), { discard: true }))

const listed = (options?: ListOptions) =>
  Effect.flatMap(ToolRegistry, (r) => Effect.map(r.list(options), (tools) => tools.map((t) => `${t.name}@${t.version}`)))

const notFound = (effect: Effect.Effect<unknown, ToolNotFound>) =>
  Effect.map(Effect.flip(effect), (error) => {
    expect(error).toBeInstanceOf(ToolNotFound)
    return { name: error.name, versionRange: error.versionRange, suggestions: error.suggestions }
  })

describe("ToolRegistry.list", () => {
  it.effect("is sorted by name, whatever the order of registration", () =>
    Effect.gen(function*() {
      yield* register(plain("charlie"), plain("alpha"), plain("echo"), plain("bravo"), plain("delta"))
      expect(yield* listed()).toEqual(["alpha@1.0.0", "bravo@1.0.0", "charlie@1.0.0", "delta@1.0.0", "echo@1.0.0"])
      const specs = yield* Effect.flatMap(ToolRegistry, (r) => r.specs())
      expect(specs.map((s) => s.name)).toEqual(["alpha", "bravo", "charlie", "delta", "echo"])
      const exported = yield* Effect.flatMap(ToolRegistry, (r) => r.export("openai", { tags: [] }))
      expect(exported).toHaveLength(5)
      expect(exported[0]).toMatchObject({ type: "function", function: { name: "alpha", description: "The alpha tool" } })
    }).pipe(Effect.provide(registry)))

  it.effect("leaves out a tool whose every version is deprecated, unless includeDeprecated", () =>
    Effect.gen(function*() {
      const r = yield* ToolRegistry
      yield* register(plain("old"), plain("old", { version: "1.1.0" }), plain("kept"))
      yield* r.deprecate("old", "1.1.0", "use kept")
      // one live version left: it is the one listed
      expect(yield* listed()).toEqual(["kept@1.0.0", "old@1.0.0"])
      yield* r.deprecate("old", "1.0.0", "use kept")
      expect(yield* listed()).toEqual(["kept@1.0.0"])
      expect(yield* listed({ includeDeprecated: false })).toEqual(["kept@1.0.0"])
      expect(yield* listed({ includeDeprecated: true })).toEqual(["kept@1.0.0", "old@1.1.0"])
      expect((yield* r.list({ includeDeprecated: true })).find((t) => t.name === "old")?.deprecated).toBe("use kept")
      // still callable by name: the latest of the deprecated versions
      expect((yield* r.get("old")).version).toBe("1.1.0")
    }).pipe(Effect.provide(registry)))

  it.effect("filters by tag, and an empty tag list keeps everything", () =>
    Effect.gen(function*() {
      yield* register(plain("files", { tags: ["fs"] }), plain("web", { tags: ["net", "http"] }), plain("bare"))
      expect(yield* listed({ tags: ["http"] })).toEqual(["web@1.0.0"])
      expect(yield* listed({ tags: ["fs", "net"] })).toEqual(["files@1.0.0", "web@1.0.0"])
      expect(yield* listed({ tags: [] })).toEqual(["bare@1.0.0", "files@1.0.0", "web@1.0.0"])
    }).pipe(Effect.provide(registry)))

  it.effect("a tool with only prerelease versions is listed and found at its latest prerelease", () =>
    Effect.gen(function*() {
      yield* register(plain("stable"), plain("beta", { version: "2.0.0-beta.1" }), plain("beta", { version: "2.0.0-beta.2" }))
      expect(yield* listed()).toContain("stable@1.0.0")
      expect(yield* listed()).toContain("beta@2.0.0-beta.2")
      expect((yield* Effect.flatMap(ToolRegistry, (r) => r.get("beta"))).version).toBe("2.0.0-beta.2")
      // an exact range still reaches an older one; a stable version, once there, is the latest
      expect((yield* Effect.flatMap(ToolRegistry, (r) => r.get("beta", "2.0.0-beta.1"))).version).toBe("2.0.0-beta.1")
      yield* register(plain("beta", { version: "1.5.0" }))
      expect((yield* Effect.flatMap(ToolRegistry, (r) => r.get("beta"))).version).toBe("1.5.0")
    }).pipe(Effect.provide(registry)))
})

describe("ToolRegistry lookups", () => {
  it.effect("a range that no version satisfies: ToolNotFound with the range and no suggestions", () =>
    Effect.gen(function*() {
      const r = yield* ToolRegistry
      yield* register(plain("alpha"), plain("alpha", { version: "1.10.0" }), plain("alphas"))
      expect((yield* r.get("alpha", "^1.2.0")).version).toBe("1.10.0")
      expect(yield* notFound(r.get("alpha", "^9.0.0"))).toEqual({ name: "alpha", versionRange: "^9.0.0", suggestions: [] })
      expect(Result.isFailure(r.lookup("alpha", "^9.0.0"))).toBe(true)
      // an unknown name gets the close ones
      expect(yield* notFound(r.get("alpah"))).toEqual({ name: "alpah", versionRange: undefined, suggestions: ["alpha", "alphas"] })
    }).pipe(Effect.provide(registry)))

  it.effect("the latest version, once looked up, is not what a range spelled \"undefined\" finds", () =>
    Effect.gen(function*() {
      const r = yield* ToolRegistry
      yield* register(plain("alpha"))
      expect((yield* r.get("alpha")).version).toBe("1.0.0")
      expect(yield* notFound(r.get("alpha", "undefined"))).toEqual({ name: "alpha", versionRange: "undefined", suggestions: [] })
    }).pipe(Effect.provide(registry)))

  it.effect("versions are listed newest first by semver; an unknown name has none", () =>
    Effect.gen(function*() {
      const r = yield* ToolRegistry
      yield* register(plain("alpha", { version: "1.2.0" }), plain("alpha", { version: "1.10.0" }), plain("alpha"))
      expect(yield* r.versions("alpha")).toEqual(["1.10.0", "1.2.0", "1.0.0"])
      expect(yield* r.versions("nope")).toEqual([])
    }).pipe(Effect.provide(registry)))
})

describe("ToolRegistry.unregister and deprecate", () => {
  it.effect("unregister without a version removes every version; the name is then unknown", () =>
    Effect.gen(function*() {
      const r = yield* ToolRegistry
      yield* register(plain("alpha"), plain("alpha", { version: "2.0.0" }), plain("alpha2"))
      yield* r.unregister("alpha")
      expect(yield* r.versions("alpha")).toEqual([])
      expect(yield* listed()).toEqual(["alpha2@1.0.0"])
      expect(yield* notFound(r.get("alpha"))).toEqual({ name: "alpha", versionRange: undefined, suggestions: ["alpha2"] })
    }).pipe(Effect.provide(registry)))

  it.effect("unregistering the last version makes the name unknown (with suggestions); another version stays", () =>
    Effect.gen(function*() {
      const r = yield* ToolRegistry
      yield* register(plain("alpha"), plain("alpha", { version: "2.0.0" }), plain("alpha2"))
      yield* r.unregister("alpha", "2.0.0")
      expect((yield* r.get("alpha")).version).toBe("1.0.0")
      yield* r.unregister("alpha", "1.0.0")
      expect(yield* notFound(r.get("alpha"))).toEqual({ name: "alpha", versionRange: undefined, suggestions: ["alpha2"] })
      // the name is free again
      yield* register(plain("alpha", { version: "3.0.0" }))
      expect((yield* r.get("alpha")).version).toBe("3.0.0")
    }).pipe(Effect.provide(registry)))

  it.effect("unregistering what is not there changes nothing", () =>
    Effect.gen(function*() {
      const r = yield* ToolRegistry
      yield* register(plain("alpha"))
      yield* r.unregister("nope")
      yield* r.unregister("nope", "1.0.0")
      yield* r.unregister("alpha", "9.9.9")
      expect(yield* listed()).toEqual(["alpha@1.0.0"])
    }).pipe(Effect.provide(registry)))

  it.effect("deprecating an unknown name or version fails with ToolNotFound", () =>
    Effect.gen(function*() {
      const r = yield* ToolRegistry
      yield* register(plain("alpha"))
      expect(yield* notFound(r.deprecate("nope", "1.0.0", "why"))).toEqual({ name: "nope", versionRange: "1.0.0", suggestions: [] })
      expect(yield* notFound(r.deprecate("alpha", "9.9.9", "why"))).toEqual({ name: "alpha", versionRange: "9.9.9", suggestions: [] })
      expect((yield* r.get("alpha")).deprecated).toBeUndefined()
    }).pipe(Effect.provide(registry)))
})

describe("ToolRegistry.register", () => {
  it.effect("refuses a definition built by hand with a bad name or version, and keeps nothing of it", () =>
    Effect.gen(function*() {
      const r = yield* ToolRegistry
      const good = plain("good")
      for (
        const [tool, reason] of [
          [{ ...good, version: "v1" }, "\"v1\" is not a semver version"],
          [{ ...good, name: "bad name" }, "the name must match ^[a-zA-Z0-9_-]{1,64}$"]
        ] as const
      ) {
        const error = yield* Effect.flip(r.register(tool))
        expect(error).toBeInstanceOf(InvalidToolDefinition)
        expect({ name: error.name, reason: error.reason }).toEqual({ name: tool.name, reason })
      }
      expect(yield* listed()).toEqual([])
      // and a second registration of a name@version
      yield* r.register(good)
      const twice = yield* Effect.flip(r.register(good))
      expect(twice.reason).toBe("version 1.0.0 is already registered")
    }).pipe(Effect.provide(registry)))
})

class Greeting extends Context.Service<Greeting, string>()("test/ToolRegistry/Greeting") {}

/** Returns the caller's `Greeting`, if it has one. */
const callerGreeting = Tool.make("caller_greeting", {
  description: "The caller's greeting",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.map(Effect.serviceOption(Greeting), Option.getOrElse(() => "none"))
})

/** Needs `Greeting`: captured when registered. */
const capturedGreeting = Tool.make("captured_greeting", {
  description: "The greeting it was registered with",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Greeting
})

/** The name of the span the handler runs under, and the one a span it makes nests under. */
const spans = Tool.make("spans", {
  description: "Span names",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () =>
    Effect.gen(function*() {
      const current = yield* Effect.map(Effect.option(Effect.currentSpan), Option.map((s) => s.name))
      const inner = yield* Effect.withSpan(Effect.currentSpan, "inner")
      const parent = Option.flatMap(Option.some(inner.parent), (p) => p).pipe(
        Option.map((p) => (p._tag === "Span" ? p.name : "external"))
      )
      return { current: Option.getOrElse(current, () => "none"), innerParent: Option.getOrElse(parent, () => "none") }
    })
})

const ws = makeTempDirSync("registry-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
const system = ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(ws) })

describe("the context a registered tool's handler runs in", () => {
  it.effect("each call sees its own caller's services, not the previous caller's", () =>
    Effect.gen(function*() {
      yield* register(callerGreeting)
      const executor = yield* ToolExecutor
      const call = executor.execute("caller_greeting", {})
      const outputs: Array<unknown> = []
      for (const greeting of ["hello", "bonjour", "hallo"]) {
        outputs.push((yield* Effect.provideService(call, Greeting, greeting)).output)
      }
      // a caller in one context, twice
      const steady = Effect.provideService(Effect.zip(call, call), Greeting, "hej")
      const [a, b] = yield* steady
      outputs.push(a.output, b.output, (yield* call).output)
      expect(outputs).toEqual(["hello", "bonjour", "hallo", "hej", "hej", "none"])
    }).pipe(Effect.provide(system)))

  it.effect("a service captured at registration wins over the caller's", () =>
    Effect.gen(function*() {
      const r = yield* ToolRegistry
      yield* Effect.provideService(r.register(capturedGreeting), Greeting, "registered")
      const executor = yield* ToolExecutor
      const call = executor.execute("captured_greeting", {})
      expect((yield* call).output).toBe("registered")
      expect((yield* Effect.provideService(call, Greeting, "caller")).output).toBe("registered")
    }).pipe(Effect.provide(system)))

  it.effect("without a tracer the handler runs under the caller's span, and its own spans nest under it", () =>
    Effect.gen(function*() {
      yield* register(spans)
      const executor = yield* ToolExecutor
      const outside = yield* executor.execute("spans", {})
      expect(outside.output).toEqual({ current: "none", innerParent: "none" })
      const inside = yield* Effect.withSpan(executor.execute("spans", {}), "caller")
      expect(inside.output).toEqual({ current: "caller", innerParent: "caller" })
    }).pipe(Effect.provide(system)))

  it.effect("with a tracer the handler runs under the call's span, inside the caller's", () =>
    Effect.gen(function*() {
      yield* register(spans)
      const executor = yield* ToolExecutor
      const native = yield* Effect.tracer
      // any tracer but the built-in one turns the call spans on
      const tracer = Tracer.make({ span: (...args) => native.span(...args), context: native.context })
      const traced = yield* Effect.withTracer(Effect.withSpan(executor.execute("spans", {}), "caller"), tracer)
      expect(traced.output).toEqual({ current: "execute_tool spans", innerParent: "execute_tool spans" })
    }).pipe(Effect.provide(system)))
})
