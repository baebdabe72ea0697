/**
 * A handler runs with the services its tool was registered with, and with its caller's
 * fiber-local references: the caller's workspace root (`Workspace.withRoot`), span, log
 * annotations and clock, never those in force when the tool was registered.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Option, References, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Tool, ToolRegistry, ToolSystem, Workspace } from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const a = makeTempDirSync("registered-a-")
const b = makeTempDirSync("registered-b-")
fs.writeFileSync(path.join(a, "only-in-a.txt"), "a")

/** Reports the workspace root, the parent span's name and the log annotations its handler sees. */
const where = Tool.make("where", {
  description: "Where am I",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const root = yield* workspace.root
      const span = yield* Effect.option(Effect.currentParentSpan)
      const annotations = yield* References.CurrentLogAnnotations
      return {
        root,
        span: Option.isSome(span) && span.value._tag === "Span" ? span.value.name : null,
        annotations
      }
    })
})

describe("the context a handler runs in", () => {
  it.effect("the caller's root, span and log annotations; not those of the registration", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      // registered inside another root, a span and annotations of its own
      yield* registry.register(where).pipe(
        Workspace.withRoot(b),
        Effect.withSpan("registration"),
        Effect.annotateLogs({ at: "registration" })
      )
      const system = yield* ToolSystem
      const plain = yield* system.execute("where", {})
      expect(plain.error).toBeNull()
      expect(plain.output).toEqual({ root: fs.realpathSync(a), span: null, annotations: {} })
      const inCaller = yield* system.execute("where", {}).pipe(
        Workspace.withRoot(b),
        Effect.withSpan("caller"),
        Effect.annotateLogs({ at: "caller" })
      )
      expect(inCaller.output).toEqual({ root: fs.realpathSync(b), span: "caller", annotations: { at: "caller" } })
    }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(a) }))))

  it.effect("the services the tool was registered with win over the caller's", () =>
    Effect.gen(function*() {
      const greet = Tool.make("greet", {
        description: "Greets",
        parameters: Schema.Struct({}),
        readOnly: true,
        handler: () => Effect.map(Greeting, (greeting) => greeting.word)
      })
      const registry = yield* ToolRegistry
      yield* Effect.provideService(registry.register(greet), Greeting, { word: "registered" })
      const system = yield* ToolSystem
      const result = yield* Effect.provideService(system.execute("greet", {}), Greeting, { word: "caller" })
      expect(result.output).toBe("registered")
    }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(a) }))))

  // the merge of a caller's context with a tool's services is made once per caller context
  // (registeredServices.ts): a context met again, or a new one, must still be the caller's
  it.effect("calls from one caller context, another, then the first again: each sees its caller's", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      yield* registry.register(where)
      const system = yield* ToolSystem
      const roots: Array<unknown> = []
      const inRoot = (root: string) =>
        Effect.map(Workspace.withRoot(system.execute("where", {}), root), (result) => (result.output as { root: string }).root)
      for (const root of [a, a, b, b, a]) roots.push(yield* inRoot(root))
      expect(roots).toEqual([a, a, b, b, a].map((root) => fs.realpathSync(root)))
      // and once a call is over, its caller's context is its own again
      const after = yield* Effect.provideService(
        Effect.flatMap(system.execute("where", {}), () => Effect.map(Greeting, (greeting) => greeting)),
        Greeting,
        { word: "caller" }
      )
      expect(after.word).toBe("caller")
    }).pipe(Effect.provide(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(a) }))))
})

class Greeting extends Context.Service<Greeting, { readonly word: string }>()("test/Greeting") {}
