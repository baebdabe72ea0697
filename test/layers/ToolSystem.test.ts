/**
 * `ToolSystem.layer` as an Effect application uses it: tools that need the application's own
 * services, a layer that outputs only the library's services, platform services as
 * requirements, and a clear failure for a tool defined twice.
 */
import * as FileSystem from "effect/FileSystem"
import * as HttpClient from "effect/http/HttpClient"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { afterAll, describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, Option, Schema } from "effect"
import * as fs from "node:fs"
import {
  InvalidToolDefinition,
  type PlatformServices,
  type SystemServices,
  Tool,
  type ToolExecutionResult,
  ToolSystem,
  Workspace
} from "../../src/index.js"
import { makeTempDirSync } from "../helpers/tempDir.js"

const ws = makeTempDirSync("system-")
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

/** An application's own service. */
class Greeter extends Context.Service<Greeter, { readonly greet: (name: string) => string }>()("app/Greeter") {
  static readonly layer = Layer.succeed(Greeter, { greet: (name) => `Hello, ${name}!` })
}

/** Another one, to check that requirements of several tools add up. */
class Clock2 extends Context.Service<Clock2, { readonly now: string }>()("app/Clock2") {}

const greet = Tool.make("greet", {
  description: "Greets someone",
  parameters: Schema.Struct({ name: Schema.String }),
  readOnly: true,
  handler: ({ name }) => Effect.map(Greeter, (g) => g.greet(name))
})

const when = Tool.make("when", {
  description: "Tells the time",
  parameters: Schema.Struct({}),
  readOnly: true,
  handler: () => Effect.map(Clock2, (c) => c.now)
})

describe("ToolSystem.layer", () => {
  it("carries the requirements of the given tools, and the platform services, in its type", () => {
    const layer = ToolSystem.layer({ tools: [greet] })
    expectTypeOf(layer).toEqualTypeOf<Layer.Layer<SystemServices, InvalidToolDefinition, PlatformServices | Greeter>>()
    const two = ToolSystem.layerNode({ tools: [greet, when] })
    expectTypeOf(two).toEqualTypeOf<Layer.Layer<SystemServices, InvalidToolDefinition, Greeter | Clock2>>()
    const none = ToolSystem.layerNode()
    expectTypeOf(none).toEqualTypeOf<Layer.Layer<SystemServices, InvalidToolDefinition, never>>()
    // provided, nothing is left to require
    const provided = ToolSystem.layer({ tools: [greet] }).pipe(
      Layer.provide(Greeter.layer),
      Layer.provide(NodeServices.layer),
      Layer.provide(FetchHttpClient.layer)
    )
    expectTypeOf(provided).toEqualTypeOf<Layer.Layer<SystemServices, InvalidToolDefinition, never>>()
  })

  it.effect("runs a tool with the application's service, provided the usual Effect way", () =>
    Effect.gen(function*() {
      const tools = yield* ToolSystem
      const result = yield* tools.execute("greet", { name: "Ada" })
      expect(result).toMatchObject({ success: true, output: "Hello, Ada!" })
    }).pipe(
      Effect.provide(
        ToolSystem.layer({ tools: [greet], workspace: Workspace.layerFixed(ws) }).pipe(
          Layer.provide(Greeter.layer),
          Layer.provide(NodeServices.layer),
          Layer.provide(FetchHttpClient.layer)
        )
      )
    ))

  it.effect("does not put the platform's services into the application's context", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(ToolSystem.layerNode({ builtins: false, workspace: Workspace.layerFixed(ws) }))
      expect(Option.isSome(Context.getOption(context, ToolSystem))).toBe(true)
      expect(Option.isSome(Context.getOption(context, Workspace))).toBe(true)
      expect(Option.isNone(Context.getOption(context, FileSystem.FileSystem))).toBe(true)
      expect(Option.isNone(Context.getOption(context, HttpClient.HttpClient))).toBe(true)
    }).pipe(Effect.scoped))

  it.effect("the application's own FileSystem is the one its tools get", () =>
    Effect.gen(function*() {
      const reads: Array<string> = []
      const appFs = Layer.effect(
        FileSystem.FileSystem,
        Effect.map(FileSystem.FileSystem, (real) => ({
          ...real,
          readFileString: (path: string, encoding?: string) => {
            reads.push(path)
            return real.readFileString(path, encoding)
          }
        }))
      ).pipe(Layer.provide(NodeServices.layer))
      fs.writeFileSync(`${ws}/app.txt`, "app")
      const catTool = Tool.make("cat_app", {
        description: "Reads with the FileSystem of the application",
        parameters: Schema.Struct({ file: Schema.String }),
        readOnly: true,
        handler: ({ file }) => Effect.flatMap(FileSystem.FileSystem, (f) => f.readFileString(`${ws}/${file}`))
      })
      const layer = ToolSystem.layer({ builtins: false, tools: [catTool], workspace: Workspace.layerFixed(ws) }).pipe(
        Layer.provide(Layer.mergeAll(appFs, Layer.effectContext(Effect.map(Effect.context<NodeServices.NodeServices>(), Context.omit(FileSystem.FileSystem))).pipe(Layer.provide(NodeServices.layer)), FetchHttpClient.layer))
      )
      const result = yield* Effect.flatMap(ToolSystem, (t) => t.execute("cat_app", { file: "app.txt" })).pipe(
        Effect.provide(layer)
      )
      expect(result).toMatchObject({ success: true, output: "app" })
      expect(reads).toEqual([`${ws}/app.txt`])
    }))

  it.effect("a second definition of the same name and version fails the layer, naming the tool", () =>
    Effect.gen(function*() {
      const again = Tool.make("greet", {
        description: "Greets again",
        parameters: Schema.Struct({ name: Schema.String }),
        handler: () => Effect.succeed("again")
      })
      const exit = yield* Effect.exit(
        Layer.build(ToolSystem.layerNode({ builtins: false, tools: [greet, again] }).pipe(Layer.provide(Greeter.layer)))
      )
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        const [reason] = exit.cause.reasons
        const error = exit.cause.reasons.length === 1 && reason !== undefined && Cause.isFailReason(reason) ? reason.error : undefined
        expect(error).toBeInstanceOf(InvalidToolDefinition)
        expect(error?.message).toMatch(/greet.*1\.0\.0.*already registered/)
      }
    }).pipe(Effect.scoped))

  it("a result narrows on success: errorCode is typed only on failures", () => {
    const describe_ = (r: ToolExecutionResult): string => {
      if (r.success) {
        expectTypeOf(r.errorCode).toEqualTypeOf<null>()
        expectTypeOf(r.version).toEqualTypeOf<string>()
        return "ok"
      }
      expectTypeOf(r.error).toEqualTypeOf<string>()
      return r.errorCode
    }
    expect(describe_({ success: true, output: 1, error: null, errorCode: null, durationMs: 0, confirmed: true, tool: "t", version: "1.0.0" }))
      .toBe("ok")
  })
})
