/**
 * What the scale proofs (`scale.slow.test.ts`, `scaleSessions.slow.test.ts`) share: `effect-tool-system
 * mcp --http 127.0.0.1:0` processes (the CLI from src/ run with `node --import tsx`) behind a
 * real nginx (Debian's package; `.ci/run` installs it) whose config, pid and logs live in the
 * test's temp dir, all on 127.0.0.1, and how each is stopped so that no process is left behind.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

/** Whether `nginx` is on the PATH (the proofs are skipped, saying so, when it is not). */
export const nginxInstalled: boolean = (() => {
  try {
    execFileSync("nginx", ["-v"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

/** A port free a moment ago on 127.0.0.1. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer()
    probe.on("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/** Resolves once `child` has exited (at once when it already has). */
export const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
  })

/** Stops `child` with `signal`, and with SIGKILL when it is still there after 5 s. */
export const stop = async (child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") => {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill(signal)
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000)
  await exited(child)
  clearTimeout(timer)
}

/** One `mcp --http` process and the port it serves on (read from its log line). */
export interface McpProcess {
  readonly child: ChildProcess
  readonly port: number
  readonly pid: number
}

/** `mcp --http 127.0.0.1:0 ...args`; resolves once it logs where it serves. */
export const startMcp = (args: ReadonlyArray<string>) =>
  new Promise<McpProcess>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "src/cli/main.ts"), "mcp", "--http", "127.0.0.1:0", ...args], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"]
    })
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

/**
 * Starts one process per entry of `argsList` at once; each one started is pushed to `into` (so
 * that `afterAll` stops it) before the first failure, if any, is thrown.
 */
export const startMcps = async (argsList: ReadonlyArray<ReadonlyArray<string>>, into: Array<McpProcess>) => {
  const started = await Promise.allSettled(argsList.map(startMcp))
  for (const result of started) if (result.status === "fulfilled") into.push(result.value)
  for (const result of started) if (result.status === "rejected") throw result.reason
}

/** The directives of a `location` proxying MCP (streams unbuffered, one connection per request). */
export const proxyDirectives = `
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 30s;`

/**
 * An nginx config kept in `dir` (one worker, in the foreground): an access log `access.log` of
 * `logFormat` per request, then `http` (upstreams, maps and the server) in the `http` block.
 */
export const nginxConf = (dir: string, logFormat: string, http: string) => `
daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  log_format entry '${logFormat}';
  access_log ${dir}/access.log entry;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${http}
}
`

/** Waits until `url` answers (nginx is up). */
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

/**
 * nginx with the config `conf(port)` (a free port on 127.0.0.1) written to `dir`; resolves once
 * it answers on `/mcp`, with `origin` (`http://127.0.0.1:<port>`). `started` gets the child at
 * once, so that `afterAll` stops it even when it never answers.
 */
export const startNginx = async (dir: string, conf: (port: number) => string, started: (child: ChildProcess) => void) => {
  const port = await freePort()
  fs.writeFileSync(path.join(dir, "nginx.conf"), conf(port))
  const child = spawn("nginx", ["-p", dir, "-c", "nginx.conf", "-e", path.join(dir, "error.log")], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  started(child)
  let log = ""
  child.stderr?.on("data", (chunk: Buffer) => void (log += chunk.toString("utf8")))
  const origin = `http://127.0.0.1:${port}`
  const errorLog = path.join(dir, "error.log")
  await waitForHttp(`${origin}/mcp`, child, () => log + (fs.existsSync(errorLog) ? fs.readFileSync(errorLog, "utf8") : ""))
  return { child, origin }
}

/** The lines of nginx's access log in `dir` so far. */
export const accessLines = (dir: string): ReadonlyArray<string> =>
  fs.readFileSync(path.join(dir, "access.log"), "utf8").split("\n").filter((l) => l !== "")

/** The text parts of a tool result's `content`, joined. */
export const textOf = (content: unknown): string =>
  Array.isArray(content)
    ? content.map((part: unknown) =>
      typeof part === "object" && part !== null && "text" in part && typeof part.text === "string" ? part.text : ""
    ).join("")
    : ""
