/**
 * Sessions behind a load balancer (issue 50): two `effect-tool-system mcp --http 127.0.0.1:0
 * --sessions --session-route a|b` processes (the CLI from src/ run with `node --import tsx`)
 * behind a real nginx (Debian's package; `.ci/run` installs it) routing each session to its
 * process as the README says: a `map` from the session id's tag (`a.` or `b.`) to that process,
 * round robin for a request with no id (an `initialize`).
 *
 * - Through `/mcp` (routed): SDK v2 clients pinned to 2025-11-25 each open a session and call
 *   `write_file`, which asks them by `elicitation/create` (the question on the call's stream,
 *   the answer a POST of its own): every call is confirmed and writes; the access log shows each
 *   session's requests all at the process its tag names, and the sessions at both.
 * - The controls: through `/rr/mcp` (round robin) and `/hash/mcp` (`hash $http_mcp_session_id
 *   consistent`, which cannot know where the id was made) a session's requests reach the process
 *   that does not know it (404): what the route is for.
 *
 * nginx and the processes are started in `beforeAll` and stopped in `afterAll`, in a temp dir.
 * Skipped, saying why, when `nginx` is not on the PATH.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import type { ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { running } from "../../helpers/processes.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { accessLines, type McpProcess, nginxConf, nginxInstalled, proxyDirectives, startMcps, startNginx, stop, textOf } from "./scaleHarness.js"

/** nginx: `/mcp` routed on the session id's tag, `/rr/mcp` round robin and `/hash/mcp` hashed (the controls). */
const conf = (dir: string, upstreams: ReadonlyArray<number>) => (port: number) => {
  const [a, b] = upstreams
  const servers = upstreams.map((p) => `    server 127.0.0.1:${p};`).join("\n")
  return nginxConf(
    dir,
    '$upstream_addr $status $request_method "$http_mcp_session_id"',
    `  map $http_mcp_session_id $mcp_backend {
    ~^a\\. 127.0.0.1:${a};
    ~^b\\. 127.0.0.1:${b};
    default rr;
  }
  upstream rr {
${servers}
  }
  upstream hashed {
    hash $http_mcp_session_id consistent;
${servers}
  }
  server {
    listen 127.0.0.1:${port};
    location /mcp {
      proxy_pass http://$mcp_backend;${proxyDirectives}
    }
    location /rr/ {
      proxy_pass http://rr/;${proxyDirectives}
    }
    location /hash/ {
      proxy_pass http://hashed/;${proxyDirectives}
    }
  }`
  )
}

/** The access log's lines: upstream, status, method and session id (`""` for none). */
const accessLog = (dir: string) =>
  accessLines(dir).map((line) => {
    const [upstream = "", status = "", method = "", quoted = '""'] = line.split(" ")
    return { upstream, status, method, session: quoted.slice(1, -1) }
  })

const headers = (sessionId?: string) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" })
})

describe.skipIf(!nginxInstalled)(
  `two mcp --http --sessions processes behind nginx, each session routed to its process by its id's tag${nginxInstalled ? "" : " (skipped: nginx not on the PATH)"}`,
  { timeout: 240_000 },
  () => {
    const dir = makeTempDirSync("ets-mcp-sessions-scale-")
    const workspace = path.join(dir, "workspace")
    const processes: Array<McpProcess> = []
    let nginx: ChildProcess | undefined
    let base = ""

    beforeAll(async () => {
      fs.mkdirSync(workspace)
      await startMcps(["a", "b"].map((route) => ["--sessions", "--session-route", route, "--workspace", workspace]), processes)
      base = (await startNginx(dir, conf(dir, processes.map((p) => p.port)), (child) => void (nginx = child))).origin
    }, 180_000)

    afterAll(async () => {
      if (nginx !== undefined) await stop(nginx)
      await Promise.all(processes.map((p) => stop(p.child)))
      expect(processes.map((p) => p.pid).filter(running)).toEqual([])
      fs.rmSync(dir, { recursive: true, force: true })
    }, 60_000)

    it("routed: each session stays at the process its tag names, sessions at both, every confirmation asked and answered", async () => {
      const before = accessLog(dir).length
      const clients = await Promise.all(Array.from({ length: 12 }, async (_, i) => {
        const client = new Client(
          { name: `sticky-${i}`, version: "1.0.0" },
          { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "legacy" } }
        )
        let asked = 0
        client.setRequestHandler("elicitation/create", () => {
          asked++
          return Promise.resolve({ action: "accept", content: { confirm: true } })
        })
        const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`))
        await client.connect(transport)
        const result = await client.callTool(
          { name: "write_file", arguments: { filepath: `sticky-${i}.txt`, content: `session ${i}` } },
          { timeout: 30_000 }
        )
        const session = transport.sessionId ?? ""
        await client.close()
        return { i, session, asked, isError: result.isError === true, text: textOf(result.content) }
      }))
      for (const c of clients) {
        expect(c.isError, c.text).toBe(false)
        expect(c.asked).toBe(1)
        expect(fs.readFileSync(path.join(workspace, `sticky-${c.i}.txt`), "utf8")).toBe(`session ${c.i}`)
      }
      const lines = accessLog(dir).slice(before)
      const upstreamOf = new Map<string, Set<string>>()
      for (const line of lines) {
        if (line.session === "" || line.session === "-") continue
        const seen = upstreamOf.get(line.session) ?? new Set<string>()
        seen.add(line.upstream)
        upstreamOf.set(line.session, seen)
        expect(line.status, JSON.stringify(line)).not.toBe("404")
      }
      expect(upstreamOf.size).toBe(12)
      for (const c of clients) {
        const process = processes[c.session.startsWith("a.") ? 0 : 1]
        expect([...(upstreamOf.get(c.session) ?? [])]).toEqual([`127.0.0.1:${process?.port}`])
      }
      const used = new Set([...upstreamOf.values()].flatMap((s) => [...s]))
      expect([...used].sort()).toEqual(processes.map((p) => `127.0.0.1:${p.port}`).sort())
    })

    for (const control of ["rr", "hash"]) {
      it(`${control === "rr" ? "round robin" : "a hash of the id"} (a control): a session's requests also reach the process that does not know it (404)`, async () => {
        const init = {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: control, version: "1" } }
        }
        // a few sessions: with a hash, about half are made at the process their id does not hash to
        const statuses: Array<number> = []
        for (let s = 0; s < 10; s++) {
          const opened = await fetch(`${base}/${control}/mcp`, { method: "POST", headers: headers(), body: JSON.stringify(init) })
          const session = opened.headers.get("mcp-session-id") ?? ""
          await opened.text()
          expect(session).toMatch(/^[ab]\./)
          for (let i = 0; i < 2; i++) {
            const listed = await fetch(`${base}/${control}/mcp`, {
              method: "POST",
              headers: headers(session),
              body: JSON.stringify({ jsonrpc: "2.0", id: 2 + i, method: "tools/list", params: {} })
            })
            await listed.text()
            statuses.push(listed.status)
          }
        }
        expect(statuses).toContain(404)
        expect(statuses).toContain(200)
      })
    }
  }
)
