/**
 * The bridge's own `tools/call` table: ids of its own, the answer checked as the SDK checks it,
 * the SDK's errors for an error answer, a timeout and a closed connection, and cancellation.
 * The bridge's tests drive it against real server processes (bridge, callPath, lifecycle); these
 * take each rule on its own, with the messages it writes captured.
 */
import { type JSONRPCMessage, ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client"
import { describe, expect, it } from "vitest"
import { type CallAnswer, makeDirectCalls } from "../../../src/tools/mcp/directCalls.js"

const params = { name: "echo", arguments: { message: "hi" } }

const table = (open = true) => {
  const sent: Array<JSONRPCMessage> = []
  const answers: Array<CallAnswer> = []
  const calls = makeDirectCalls((message) => {
    if (!open) return false
    sent.push(message)
    return true
  })
  return { calls, sent, answers, answer: (a: CallAnswer) => answers.push(a) }
}

const errorOf = (answer: CallAnswer | undefined): unknown => {
  if (answer === undefined || answer.ok) throw new Error(`expected an error, got ${JSON.stringify(answer)}`)
  return answer.error
}

describe("the bridge's own tools/call table", () => {
  it("sends tools/call under a string id of its own, and takes only the answer with that id", () => {
    const { answer, answers, calls, sent } = table()
    const id = calls.call(params, 60_000, answer)
    expect(typeof id).toBe("string")
    expect(sent).toEqual([{ jsonrpc: "2.0", id, method: "tools/call", params }])
    // the SDK's numeric ids, unknown ids and requests are the SDK client's
    expect(calls.take({ jsonrpc: "2.0", id: 1, result: { content: [] } })).toBe(false)
    expect(calls.take({ jsonrpc: "2.0", id: "other", result: { content: [] } })).toBe(false)
    expect(calls.take({ jsonrpc: "2.0", id: id!, method: "ping" })).toBe(false)
    expect(answers).toEqual([])
    expect(calls.take({ jsonrpc: "2.0", id: id!, result: { content: [{ type: "text", text: "hi" }] } })).toBe(true)
    expect(answers).toEqual([{ ok: true, result: { content: [{ type: "text", text: "hi" }] } }])
    // answered once: a second answer is not ours any more
    expect(calls.take({ jsonrpc: "2.0", id: id!, result: { content: [] } })).toBe(false)
    expect(answers).toHaveLength(1)
    // each call has an id of its own
    expect(calls.call(params, 60_000, answer)).not.toBe(id)
  })

  it("checks the result as the SDK does: a malformed one is an error, not a result", () => {
    const { answer, answers, calls } = table()
    const id = calls.call(params, 60_000, answer)!
    expect(calls.take({ jsonrpc: "2.0", id, result: { content: "not a list" } })).toBe(true)
    expect(errorOf(answers[0])).toBeInstanceOf(Error)
    expect(String(errorOf(answers[0]))).toMatch(/content/)
  })

  it("an error answer is a ProtocolError with the server's code, message and data", () => {
    const { answer, answers, calls } = table()
    const id = calls.call(params, 60_000, answer)!
    calls.take({ jsonrpc: "2.0", id, error: { code: -32602, message: "bad arguments", data: { field: "message" } } })
    const error = errorOf(answers[0])
    expect(error).toBeInstanceOf(ProtocolError)
    expect(error).toMatchObject({ code: -32602, data: { field: "message" } })
    expect(String(error)).toMatch(/bad arguments/)
  })

  // real time: the call's timeout is a Node timer (directCalls.ts); the 60 ms one set after it fires after it,
  // whatever the load (Node runs due timers in the order they are due)
  it("no answer in time: the server is told to cancel, and the call fails with the SDK's timeout error", async () => {
    const { answer, answers, calls, sent } = table()
    const id = calls.call(params, 10, answer)!
    await new Promise((resolve) => setTimeout(resolve, 60))
    const error = errorOf(answers[0])
    expect(error).toBeInstanceOf(SdkError)
    expect(error).toMatchObject({ code: SdkErrorCode.RequestTimeout, data: { timeout: 10 } })
    expect(String(error)).toMatch(/Request timed out/)
    expect(sent[1]).toMatchObject({ method: "notifications/cancelled", params: { requestId: id } })
    // a late answer is not taken
    expect(calls.take({ jsonrpc: "2.0", id, result: { content: [] } })).toBe(false)
    expect(answers).toHaveLength(1)
  })

  // real time: were the call's 20 ms Node timer left, it would fire before the 60 ms one set after it
  it("a cancelled call tells the server, never answers, and its timer is gone", async () => {
    const { answer, answers, calls, sent } = table()
    const id = calls.call(params, 20, answer)!
    calls.cancel(id, "the call was interrupted")
    expect(sent[1]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, reason: "the call was interrupted" }
    })
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(answers).toEqual([])
    // cancelling again, or after the answer, sends nothing more
    calls.cancel(id, "again")
    expect(sent).toHaveLength(2)
  })

  it("a closed connection fails every pending call, and a call made after it at once", () => {
    const { answer, answers, calls } = table()
    calls.call(params, 60_000, answer)
    calls.call(params, 60_000, answer)
    calls.closed()
    expect(answers.map((a) => errorOf(a))).toEqual([
      expect.objectContaining({ code: SdkErrorCode.ConnectionClosed }),
      expect.objectContaining({ code: SdkErrorCode.ConnectionClosed })
    ])
    const shut = table(false)
    expect(shut.calls.call(params, 60_000, shut.answer)).toBeUndefined()
    expect(errorOf(shut.answers[0])).toMatchObject({ code: SdkErrorCode.ConnectionClosed })
    expect(String(errorOf(answers[0]))).toMatch(/Connection closed/)
    expect(String(errorOf(shut.answers[0]))).toMatch(/Connection closed/)
  })
})

describe("the table takes only well-formed answers, as the SDK's schema would accept them", () => {
  it("a line with one of our ids that is not a JSON-RPC answer is left for the SDK's check, and the call still waits", () => {
    const { answer, answers, calls } = table()
    const id = calls.call(params, 60_000, answer)!
    // not an object, no jsonrpc, a wrong version, an extra field (the result envelope is strict),
    // neither result nor error, a malformed error
    for (
      const line of [
        null,
        "text",
        [id],
        { id, result: { content: [] } },
        { jsonrpc: "1.0", id, result: { content: [] } },
        { jsonrpc: "2.0", id, result: { content: [] }, extra: 1 },
        { jsonrpc: "2.0", id },
        { jsonrpc: "2.0", id, error: { code: "not a number", message: "bad" } },
        { jsonrpc: "2.0", id, error: { code: -1 } },
        { jsonrpc: "2.0", id, error: { code: -1, message: "bad" }, extra: 1 }
      ]
    ) {
      expect(calls.take(line), JSON.stringify(line)).toBe(false)
    }
    expect(answers).toEqual([])
    // the call is still pending: a well-formed answer ends it
    expect(calls.take({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "late" }] } })).toBe(true)
    expect(answers).toEqual([{ ok: true, result: { content: [{ type: "text", text: "late" }] } }])
  })

  it("an error answer without data, and a result with the SDK's defaults filled in", () => {
    const { answer, answers, calls } = table()
    const first = calls.call(params, 60_000, answer)!
    expect(calls.take({ jsonrpc: "2.0", id: first, error: { code: -32000, message: "it broke" } })).toBe(true)
    expect(errorOf(answers[0])).toMatchObject({ code: -32000, data: undefined })
    const second = calls.call(params, 60_000, answer)!
    // CallToolResultSchema gives `content` its default
    expect(calls.take({ jsonrpc: "2.0", id: second, result: { structuredContent: { n: 1 } } })).toBe(true)
    expect(answers[1]).toEqual({ ok: true, result: { content: [], structuredContent: { n: 1 } } })
  })
})
