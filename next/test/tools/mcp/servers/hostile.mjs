// A stdio MCP server, written on the raw protocol, that answers `initialize` and `tools/list`
// (one tool, `work`) and then pushes at its client without end. The first argument says what:
//   ping      `ping` requests, and it never reads its stdin again (the answers pile up toward it)
//   notify    `notifications/message` notifications
//   junk      lines that are not JSON
//   orphans   answers to requests nobody sent
//   burst     at the first call of `work`, one write of 20,000 small notifications before
//             its answer; then it keeps answering calls
//   burstRequests  the same with 20,000 `ping` requests
//   endless   one line that never ends
// `work` answers "worked" while the server still reads its stdin. A second argument names a
// file to which the server adds a line each time it starts (the test counts its starts).
import { appendFileSync } from "node:fs"

const mode = process.argv[2]
if (process.argv[3] !== undefined) appendFileSync(process.argv[3], `started ${process.pid}\n`)

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`)

/** What each flooding mode writes, one line at a time. */
const lines = {
  ping: (n) => `{"jsonrpc":"2.0","id":${n},"method":"ping"}\n`,
  notify: (n) =>
    `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"line ${n}"}}\n`,
  junk: (n) => `this is not json ${n}\n`,
  orphans: (n) => `{"jsonrpc":"2.0","id":${1_000_000 + n},"result":{}}\n`
}

/** Writes lines in batches of a thousand, yielding between batches, for ever. */
const flood = (line) => {
  let n = 0
  const batch = () => {
    let chunk = ""
    for (let i = 0; i < 1000; i++) chunk += line(n++)
    if (process.stdout.write(chunk)) setImmediate(batch)
    else process.stdout.once("drain", batch)
  }
  batch()
}

/** One write of 20,000 small messages. */
const burst = () => {
  let chunk = ""
  for (let n = 0; n < 20_000; n++) {
    chunk += mode === "burst"
      ? `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${n},"progress":1}}\n`
      : lines.ping(n)
  }
  process.stdout.write(chunk)
}
let burstDone = false

const start = () => {
  if (mode === "burst" || mode === "burstRequests") return
  if (mode === "ping") {
    process.stdin.pause()
    process.stdin.removeAllListeners("data")
    flood(lines.ping)
  } else if (mode === "endless") {
    const piece = "x".repeat(64 * 1024)
    process.stdout.write("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"")
    const more = () => {
      if (process.stdout.write(piece)) setImmediate(more)
      else process.stdout.once("drain", more)
    }
    more()
  } else {
    flood(lines[mode])
  }
}

let buffered = ""
process.stdin.on("data", (chunk) => {
  buffered += chunk
  let end
  while ((end = buffered.indexOf("\n")) !== -1) {
    const message = JSON.parse(buffered.slice(0, end))
    buffered = buffered.slice(end + 1)
    if (message.method === "initialize") {
      send({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "hostile", version: "1.0.0" }
        }
      })
    } else if (message.method === "tools/list") {
      send({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          tools: [{
            name: "work",
            description: "Does some work",
            inputSchema: { type: "object", properties: {} },
            annotations: { readOnlyHint: true }
          }]
        }
      })
      // late enough that the bridge has taken the listing, also on a loaded machine: a flood that
      // comes in the same read as the listing is refused before the listing is parsed, and the
      // server is then skipped at its start (right, but not what these tests look at)
      setTimeout(start, 300)
    } else if (message.method === "tools/call") {
      if (mode.startsWith("burst") && !burstDone) {
        burstDone = true
        burst()
      }
      send({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "worked" }] } })
    }
  }
})
process.stdin.on("end", () => process.exit(0))
