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
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { running } from "../../helpers/processes.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

const nginxInstalled: boolean = (() => {
  try {
    execFileSync("nginx", ["-v"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

/** A port free a moment ago on 127.0.0.1. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer()
    probe.on("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
  })

/** Stops `child` with SIGTERM, and with SIGKILL when it is still there after 5 s. */
const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000)
  await exited(child)
  clearTimeout(timer)
}

interface McpProcess {
  readonly child: ChildProcess
  readonly port: number
  readonly pid: number
}

/** One `mcp --http --sessions` process; resolves once it logs where it serves. */
const startMcp = (workspace: string, route: string) =>
  new Promise<McpProcess>((resolve, reject) => {
    const child = spawn(process.execPath, [
      "--import",
      "tsx",
      path.join(root, "src/cli/main.ts"),
      "mcp",
      "--http",
      "127.0.0.1:0",
      "--sessions",
      "--session-route",
      route,
      "--workspace",
      workspace
    ], { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    const timer = setTimeout(() => reject(new Error(`mcp --http did not start in 90 s:\n${stderr}`)), 90_000)
    child.stderr?.setEncoding("utf8")
    child.stderr?.on("data", (chunk: string) => {
      stderr += chunk
      const url = /Serving MCP on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr)
      if (url !== null && child.pid !== undefined) {
        clearTimeout(timer)
        resolve({ child, port: Number(url[1]), pid: child.pid })
      }
    })
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`mcp --http ended (${code ?? signal}) before serving:\n${stderr}`))
    })
  })

/** nginx: `/mcp` routed on the session id's tag, `/rr/mcp` round robin and `/hash/mcp` hashed (the controls). */
const nginxConf = (dir: string, port: number, upstreams: ReadonlyArray<number>) => {
  const [a, b] = upstreams
  const servers = upstreams.map((p) => `    server 127.0.0.1:${p};`).join("\n")
  const proxy = `
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 30s;`
  return `
daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  log_format session '$upstream_addr $status $request_method "$http_mcp_session_id"';
  access_log ${dir}/access.log session;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  map $http_mcp_session_id $mcp_backend {
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
      proxy_pass http://$mcp_backend;${proxy}
    }
    location /rr/ {
      proxy_pass http://rr/;${proxy}
    }
    location /hash/ {
      proxy_pass http://hashed/;${proxy}
    }
  }
}
`
}

/** Waits until nginx answers on `url`. */
const waitForHttp = async (url: string, child: ChildProcess, log: () => string) => {
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`nginx ended:\n${log()}`)
    const answered = await fetch(url, { method: "GET" }).then(() => true, () => false)
    if (answered) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`nginx did not answer on ${url}:\n${log()}`)
}

const textOf = (content: unknown): string =>
  Array.isArray(content)
    ? content.map((part: unknown) =>
      typeof part === "object" && part !== null && "text" in part && typeof part.text === "string" ? part.text : ""
    ).join("")
    : ""

/** The access log's lines: upstream, status, method and session id (`""` for none). */
const accessLog = (dir: string) =>
  fs.readFileSync(path.join(dir, "access.log"), "utf8").split("\n").filter((l) => l !== "").map((line) => {
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
      const started = await Promise.allSettled(["a", "b"].map((route) => startMcp(workspace, route)))
      for (const result of started) if (result.status === "fulfilled") processes.push(result.value)
      for (const result of started) if (result.status === "rejected") throw result.reason
      const port = await freePort()
      fs.writeFileSync(path.join(dir, "nginx.conf"), nginxConf(dir, port, processes.map((p) => p.port)))
      const server = spawn("nginx", ["-p", dir, "-c", "nginx.conf", "-e", path.join(dir, "error.log")], {
        stdio: ["ignore", "ignore", "pipe"]
      })
      nginx = server
      let log = ""
      server.stderr?.on("data", (chunk: Buffer) => void (log += chunk.toString("utf8")))
      base = `http://127.0.0.1:${port}`
      await waitForHttp(`${base}/mcp`, server, () => log)
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
