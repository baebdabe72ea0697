/**
 * Progress in the bridge's call paths, each rule on its own: the stdio call table asks for it
 * with the call's own id as the token (other `_meta` kept; none asked without a handler),
 * takes `notifications/progress` for its waiting calls only, fields of the wrong type left out;
 * `makeProgressRoutes` (the SDK client's path) the same, until the call is forgotten. The
 * progressBridge tests drive both against real servers.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/client"
import { describe, expect, it } from "vitest"
import { type CallAnswer, type CallProgressHandler, makeDirectCalls, makeProgressRoutes } from "../../../src/tools/mcp/directCalls.js"

type Update = Parameters<CallProgressHandler>[0]

const params = { name: "echo", arguments: { message: "hi" }, _meta: { other: "kept" } }

const progressOf = (progressToken: unknown, fields: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken, ...fields }
})

describe("the stdio call table's progress", () => {
  it("asks with the call's id as its token only when the call has a handler, and takes its notifications while it waits", () => {
    const sent: Array<JSONRPCMessage> = []
    const calls = makeDirectCalls((message) => {
      sent.push(message)
      return true
    })
    const heard: Array<Update> = []
    const answers: Array<CallAnswer> = []
    const quiet = calls.call({ name: "echo", arguments: {} }, 60_000, (a) => answers.push(a))
    const id = calls.call(params, 60_000, (a) => answers.push(a), undefined, (u) => heard.push(u))
    expect(sent[0]).toMatchObject({ id: quiet, params: { name: "echo", arguments: {} } })
    expect(sent[0] !== undefined && "params" in sent[0] ? sent[0].params : undefined).not.toHaveProperty("_meta")
    expect(sent[1]).toMatchObject({ id, params: { name: "echo", _meta: { other: "kept", progressToken: id } } })

    expect(calls.progress(progressOf(id, { progress: 1, total: 10, message: "one" }))).toBe(true)
    // fields of the wrong type are left out; a progress that is not a number is taken and dropped
    expect(calls.progress(progressOf(id, { progress: 2, total: "ten", message: 5 }))).toBe(true)
    expect(calls.progress(progressOf(id, { progress: "3" }))).toBe(true)
    expect(heard).toEqual([{ progress: 1, total: 10, message: "one" }, { progress: 2 }])
    // a call without a handler, another id, the SDK's numbers, other messages: not this table's
    expect(calls.progress(progressOf(quiet, { progress: 1 }))).toBe(false)
    expect(calls.progress(progressOf("ets-999", { progress: 1 }))).toBe(false)
    expect(calls.progress(progressOf(7, { progress: 1 }))).toBe(false)
    expect(calls.progress({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } })).toBe(false)
    expect(calls.progress(null)).toBe(false)
    expect(calls.progress({ method: "notifications/progress" })).toBe(false)
    // answered: its late progress is no longer taken
    expect(calls.take({ jsonrpc: "2.0", id: id!, result: { content: [] } })).toBe(true)
    expect(calls.progress(progressOf(id, { progress: 9 }))).toBe(false)
    expect(heard).toHaveLength(2)
    expect(answers).toHaveLength(1)
  })
})

describe("progress routes (the SDK client's path)", () => {
  it("asks with the token given a handler, hears it until forgotten, and ignores other tokens", () => {
    const routes = makeProgressRoutes()
    const heard: Array<Update> = []
    expect(routes.ask("ets-1", params, undefined)).toBe(params)
    const asked = routes.ask("ets-2", params, (u) => heard.push(u))
    expect(asked).toEqual({ ...params, _meta: { other: "kept", progressToken: "ets-2" } })
    routes.hear({ progressToken: "ets-2", progress: 4, total: 8 })
    routes.hear({ progressToken: "ets-1", progress: 5 })
    routes.hear({ progressToken: 2, progress: 5 })
    routes.hear({ progressToken: "ets-2", progress: "6" })
    routes.hear(undefined)
    routes.forget("ets-2")
    routes.hear({ progressToken: "ets-2", progress: 7 })
    expect(heard).toEqual([{ progress: 4, total: 8 }])
  })
})
