/**
 * Scale proof of the MCP server over Streamable HTTP (issue 50): two `effect-tool-system mcp
 * --http 127.0.0.1:0` processes (the CLI from src/ run with `node --import tsx`) behind a real
 * nginx (Debian's package; `.ci/run` installs it), sharing their rate limits in a real
 * `redis-server` (`--rate-limit-redis`) and one audit file (`--audit`).
 *
 * - Calls through nginx reach both processes (its access log names each call's upstream), and a
 *   tool limited with `--rate-limit TOOL=RPM` admits exactly RPM calls across the two (plus what
 *   its bucket refilled during the run: one token per 60/RPM s), where two separate limits
 *   would admit twice as many. The audit file holds one record per call.
 * - One process is killed (SIGKILL) while calls are in flight on it: those calls fail with
 *   nginx's 502 as the client's error; every other call is answered (nginx sends new calls to the
 *   survivor); the limit still holds; the audit holds one record per answered call, those the
 *   killed process answered just before the kill included (`mcp --audit` writes a durable log:
 *   a call's record is on disk before its answer is sent), and at most one of a call that
 *   failed (a call that ran and was recorded, whose answer was lost with the process).
 *
 * nginx, the processes and Redis are started in `beforeAll` and stopped in `afterAll` (nginx
 * with SIGTERM: its master stops its worker first), all in a temp dir: no process is left behind.
 * Skipped, saying why, when `nginx` or `redis-server` is not on the PATH.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Exit, Scope } from "effect"
import type { ChildProcess } from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { running } from "../../helpers/processes.js"
import { redisServer, redisServerInstalled } from "../../helpers/redisServer.js"
import { makeTempDirSync } from "../../helpers/tempDir.js"
import { accessLines, exited, type McpProcess, nginxConf, nginxInstalled, proxyDirectives, startMcps, startNginx, stop, textOf } from "./scaleHarness.js"

const missing = [nginxInstalled ? [] : ["nginx"], redisServerInstalled ? [] : ["redis-server"]].flat()

/** The limits the processes are started with. */
const CALCULATOR_RPM = 40
const RUN_COMMAND_RPM = 20

/** The pids of `pid`'s children (Linux `/proc`: each process's parent in its `stat`). */
const childrenOf = (pid: number): ReadonlyArray<number> =>
  fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "latin1")
      // after "pid (comm) ": the state, then the parent's pid
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      return parent === pid ? [Number(name)] : []
    } catch {
      return []
    }
  })

/** The arguments of one `mcp --http` process: the shared workspace, audit file and limits. */
const mcpArgs = (options: { readonly workspace: string; readonly audit: string; readonly redis: string }) => [
  "--workspace",
  options.workspace,
  "--yes",
  "--audit",
  options.audit,
  "--rate-limit",
  `calculator=${CALCULATOR_RPM}`,
  "--rate-limit",
  `run_command=${RUN_COMMAND_RPM}`,
  "--rate-limit-redis",
  options.redis
]

/** nginx: round robin over `upstreams`, each `upstream_addr` logged. */
const conf = (dir: string, upstreams: ReadonlyArray<number>) => (port: number) =>
  nginxConf(
    dir,
    "$upstream_addr $upstream_status $status",
    `  upstream mcp {
${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=60s;`).join("\n")}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://mcp;${proxyDirectives}
    }
  }`
  )

/** What became of one call. */
type Outcome =
  | { readonly kind: "ok"; readonly text: string; readonly args: object; readonly at: number }
  | { readonly kind: "limited"; readonly text: string; readonly args: object; readonly at: number }
  | { readonly kind: "failed"; readonly error: string; readonly args: object; readonly at: number }

/** The audit's `argumentsHash` of `args` (SHA-256 of their JSON). */
const hashOf = (args: object) => crypto.createHash("sha256").update(JSON.stringify(args)).digest("hex")

/** `calls` run `concurrency` at a time, in order. */
const pool = async <A>(count: number, concurrency: number, call: (i: number) => Promise<A>): Promise<ReadonlyArray<A>> => {
  const results: Array<A> = []
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++
      results[i] = await call(i)
    }
  }))
  return results
}

interface AuditLine {
  readonly tool: string
  readonly argumentsHash: string
  readonly success: boolean
  readonly errorCode: string | null
}

/** One line of the audit file, checked. */
const auditLine = (line: string): AuditLine => {
  const value: unknown = JSON.parse(line)
  if (
    typeof value !== "object" || value === null || !("tool" in value) || typeof value.tool !== "string" ||
    !("argumentsHash" in value) || typeof value.argumentsHash !== "string" || !("success" in value) ||
    typeof value.success !== "boolean" || !("errorCode" in value)
  ) throw new Error(`not an audit record: ${line}`)
  return {
    tool: value.tool,
    argumentsHash: value.argumentsHash,
    success: value.success,
    errorCode: typeof value.errorCode === "string" ? value.errorCode : null
  }
}

const auditLines = (file: string): ReadonlyArray<AuditLine> =>
  fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map(auditLine) : []

/** The access log's upstream of each proxied request (`$upstream_addr`; several when retried). */
const accessLog = (dir: string): ReadonlyArray<{ readonly upstream: string; readonly status: string }> =>
  accessLines(dir).map((line) => {
    const [upstream = "", , status = ""] = line.split(" ")
    return { upstream, status }
  })

/** Bucket tokens refilled in `ms` at `rpm` a minute (the most a run can get beyond `rpm`). */
const refilled = (ms: number, rpm: number) => Math.floor((ms * rpm) / 60_000)

describe.skipIf(missing.length > 0)(
  `two mcp --http processes behind nginx, limits in Redis, one audit file${
    missing.length > 0 ? ` (skipped: ${missing.join(" and ")} not on the PATH)` : ""
  }`,
  { timeout: 240_000 },
  () => {
    const dir = makeTempDirSync("ets-mcp-scale-")
    const workspace = path.join(dir, "workspace")
    const audit = path.join(dir, "audit.jsonl")
    const scope = Effect.runSync(Scope.make())
    const processes: Array<McpProcess> = []
    let nginx: ChildProcess | undefined
    let nginxWorkers: ReadonlyArray<number> = []
    let url = ""

    beforeAll(async () => {
      fs.mkdirSync(workspace)
      const redis = await Effect.runPromise(Scope.provide(redisServer(), scope))
      await startMcps([0, 1].map(() => mcpArgs({ workspace, audit, redis: redis.url })), processes)
      const server = await startNginx(dir, conf(dir, processes.map((p) => p.port)), (child) => void (nginx = child))
      url = `${server.origin}/mcp`
      nginxWorkers = server.child.pid === undefined ? [] : childrenOf(server.child.pid)
    }, 180_000)

    afterAll(async () => {
      if (nginx !== undefined) await stop(nginx, "SIGTERM")
      await Promise.all(processes.map((p) => stop(p.child, "SIGTERM")))
      await Effect.runPromise(Scope.close(scope, Exit.void))
      // nginx's master stopped its worker; nothing the test started runs on
      expect(nginxWorkers.length).toBeGreaterThan(0)
      expect(nginxWorkers.filter(running)).toEqual([])
      expect(processes.map((p) => p.pid).filter(running)).toEqual([])
      fs.rmSync(dir, { recursive: true, force: true })
    }, 60_000)

    const connect = async (era: "legacy" | "auto") => {
      const client = new Client({ name: "scale", version: "1.0.0" }, { versionNegotiation: { mode: era } })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return client
    }

    const callOf = (client: Client, name: string) => async (args: object): Promise<Outcome> => {
      try {
        const result = await client.callTool({ name, arguments: { ...args } }, { timeout: 30_000 })
        const text = textOf(result.content)
        if (result.isError !== true) return { kind: "ok", text, args, at: Date.now() }
        if (/RATE_LIMITED/.test(text)) return { kind: "limited", text, args, at: Date.now() }
        return { kind: "failed", error: text, args, at: Date.now() }
      } catch (error) {
        return { kind: "failed", error: error instanceof Error ? error.message : String(error), args, at: Date.now() }
      }
    }

    it("N calls through nginx reach both processes, and the limit is exact across them", async () => {
      const client = await connect("legacy")
      const before = accessLog(dir).length
      const started = Date.now()
      const outcomes = await pool(100, 6, (i) => callOf(client, "calculator")({ expression: `${i} + 1` }))
      const elapsed = Date.now() - started
      await client.close()

      const ok = outcomes.filter((o) => o.kind === "ok")
      const limited = outcomes.filter((o) => o.kind === "limited")
      expect(outcomes.filter((o) => o.kind === "failed")).toEqual([])
      expect(ok.length).toBeGreaterThanOrEqual(CALCULATOR_RPM)
      expect(ok.length).toBeLessThanOrEqual(CALCULATOR_RPM + refilled(elapsed, CALCULATOR_RPM))
      expect(limited.length).toBe(100 - ok.length)
      // both processes served calls
      const upstreams = new Set(accessLog(dir).slice(before).map((l) => l.upstream))
      expect([...upstreams].sort()).toEqual(processes.map((p) => `127.0.0.1:${p.port}`).sort())
      // one audit record per call (both processes' batches are written within 50 ms)
      const deadline = Date.now() + 10_000
      let records = auditLines(audit).filter((r) => r.tool === "calculator")
      while (records.length < outcomes.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        records = auditLines(audit).filter((r) => r.tool === "calculator")
      }
      expect(records.map((r) => r.argumentsHash).sort()).toEqual(outcomes.map((o) => hashOf(o.args)).sort())
      expect(records.filter((r) => r.success).length).toBe(ok.length)
      expect(records.filter((r) => r.errorCode === "RATE_LIMITED").length).toBe(limited.length)
      console.info(
        `scale: 100 calculator calls in ${elapsed} ms through nginx: ${ok.length} admitted (limit ${CALCULATOR_RPM}/min), ` +
          `${limited.length} RATE_LIMITED, upstreams ${[...upstreams].join(", ")}`
      )
    })

    it("a process killed mid-run: its calls in flight fail with nginx's 502, nothing else is lost, the limit and the audit hold", async () => {
      const client = await connect("auto")
      const call = callOf(client, "run_command")
      const [victim, survivor] = processes
      if (victim === undefined || survivor === undefined) throw new Error("two processes")
      const calls = 40
      let answered = 0
      let killedAt = 0
      const started = Date.now()
      const outcomes = await pool(calls, 6, async (i) => {
        const outcome = await call({ command: `sleep 0.3; echo pid=$PPID call=${i}` })
        // kill one process once a few calls came back, while others are still running on it
        if (++answered === 4) {
          killedAt = Date.now()
          victim.child.kill("SIGKILL")
        }
        return outcome
      })
      const elapsed = Date.now() - started
      await client.close()
      await exited(victim.child)

      const ok = outcomes.filter((o) => o.kind === "ok")
      const limited = outcomes.filter((o) => o.kind === "limited")
      const failed = outcomes.filter((o) => o.kind === "failed")
      const pidOf = (o: Outcome) => (o.kind === "ok" ? Number(/pid=(\d+)/.exec(o.text)?.[1]) : 0)
      // the calls in flight on the killed process, and no other, failed: each with nginx's 502
      expect(failed.length).toBeGreaterThan(0)
      expect(failed.length).toBeLessThanOrEqual(6)
      for (const f of failed) {
        expect(f.kind === "failed" ? f.error : "").toMatch(/502|Bad Gateway/i)
        expect(f.at).toBeGreaterThanOrEqual(killedAt)
      }
      expect(ok.length + limited.length + failed.length).toBe(calls)
      // no answer from the killed process after it was killed
      for (const o of ok) if (pidOf(o) === victim.pid) expect(o.at).toBeLessThanOrEqual(killedAt + 50)
      expect(new Set(ok.map(pidOf))).toEqual(new Set([victim.pid, survivor.pid]))
      // the limit: at most RPM (plus the refill) admitted; a failed call may have taken a token
      expect(ok.length).toBeLessThanOrEqual(RUN_COMMAND_RPM + refilled(elapsed, RUN_COMMAND_RPM))
      expect(ok.length + failed.length).toBeGreaterThanOrEqual(RUN_COMMAND_RPM)
      expect(limited.length).toBeGreaterThan(0)

      // the audit: one record per answered call, the killed process's last answers included (a
      // durable log: each record is on disk before its answer is sent)
      const deadline = Date.now() + 3_000
      let records = auditLines(audit).filter((r) => r.tool === "run_command")
      const answeredCalls = ok.length + limited.length
      while (records.length < answeredCalls && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        records = auditLines(audit).filter((r) => r.tool === "run_command")
      }
      const hashes = records.map((r) => r.argumentsHash)
      expect(new Set(hashes).size).toBe(hashes.length)
      const lost = [...ok, ...limited].filter((o) => !hashes.includes(hashOf(o.args)))
      expect(lost).toEqual([])
      // a failed call may have run and been recorded before the kill took its answer
      const failedRecorded = failed.filter((o) => hashes.includes(hashOf(o.args)))
      expect(records.length).toBe(answeredCalls + failedRecorded.length)
      console.info(
        `scale: 40 run_command calls in ${elapsed} ms, pid ${victim.pid} killed after 4 answers: ${ok.length} admitted ` +
          `(limit ${RUN_COMMAND_RPM}/min), ${limited.length} RATE_LIMITED, ${failed.length} failed (${
            [...new Set(failed.map((f) => (f.kind === "failed" ? f.error.replace(/\s+/g, " ") : "")))].join(" | ")
          }), audit ${records.length} records (${failedRecorded.length} of failed calls), none lost`
      )
    })
  }
)
