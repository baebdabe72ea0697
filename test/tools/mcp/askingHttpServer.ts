/**
 * A 2026-07-28 Streamable HTTP server (SDK v2, on 127.0.0.1, in the test's process) whose tools
 * ask the client questions the 2026 way: the call is answered `input_required` with the question
 * inside and a `requestState`, and the retried call carries the answer (`inputResponses`) and the
 * state echoed.
 * - `ask` (argument `params`: the question, as the test wrote it): answers with the answer it got
 *   and whether the state came back byte for byte;
 * - `endless`: asks again every time (`rounds` counts the calls it got).
 * `echoed` says, for each retried `ask`, whether its `requestState` was one the server sent.
 */
import { createMcpHandler, type ElicitRequestFormParams, inputRequired, isSpecType, Server } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import { listenMcp } from "./httpServers.js"

const open = { type: "object" as const, properties: {}, additionalProperties: true }
const simple: ElicitRequestFormParams = { message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }

export const askingHttpServer = Effect.gen(function*() {
  const counts = { rounds: 0 }
  const issued = new Set<string>()
  const echoed: Array<boolean> = []
  const build = () => {
    const server = new Server({ name: "asking-http", version: "1.0.0" }, { capabilities: { tools: {} } })
    server.setRequestHandler("tools/list", () =>
      Promise.resolve({
        tools: [
          { name: "ask", description: "Asks the question in params", inputSchema: open },
          { name: "endless", description: "Asks without end", inputSchema: open }
        ]
      }))
    server.setRequestHandler("tools/call", (request, ctx) => {
      const args = request.params.arguments ?? {}
      const answer = ctx.mcpReq.inputResponses?.q
      const state = ctx.mcpReq.requestState<string>()
      if (request.params.name === "endless") {
        counts.rounds += 1
        return Promise.resolve(inputRequired({
          inputRequests: { q: { method: "elicitation/create" as const, params: simple } },
          requestState: `round-${counts.rounds}`
        }))
      }
      if (answer === undefined) {
        const sent = `state-${Math.random().toString(36).slice(2)}`
        issued.add(sent)
        // (a test's question; one that is not the spec's shape is the 2025 fixture's business)
        const params = isSpecType.ElicitRequestFormParams(args.params) ? args.params : simple
        return Promise.resolve(inputRequired({ inputRequests: { q: { method: "elicitation/create" as const, params } }, requestState: sent }))
      }
      echoed.push(state !== undefined && issued.has(state))
      return Promise.resolve({ content: [{ type: "text" as const, text: JSON.stringify(answer) }] })
    })
    return server
  }
  const { url } = yield* listenMcp(createMcpHandler(build))
  return { url, counts, echoed }
})
