/**
 * A real `redis-server` (Debian's package) on a free port of 127.0.0.1, in a temp dir, with no
 * persistence, started and stopped in a Scope. It can be killed, paused (alive, not answering)
 * and started again on the same port, for the fault tests of `RateLimiter.layerRedis`.
 */
import { Effect, Schedule, Schema, type Scope } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as net from "node:net"
import { Tool } from "../../src/index.js"
import { tempDir } from "./tempDir.js"

/** Whether `redis-server` is on the PATH. */
export const redisServerInstalled: boolean = (() => {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

/** A running test server. */
export interface RedisServer {
  readonly port: number
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** SIGKILL: gone at once, its connections reset. */
  readonly kill: Effect.Effect<void>
  /** SIGSTOP: connections stay open, nothing is answered. */
  readonly pause: Effect.Effect<void>
  /** SIGCONT after `pause`. */
  readonly resume: Effect.Effect<void>
  /** Starts a new server on the same port (after `kill`; its data is gone). */
  readonly restart: Effect.Effect<void, Error>
}

/** A free port on 127.0.0.1 (the OS's pick for port 0, released at once). */
const freePort = Effect.callback<number, Error>((resume) => {
  const server = net.createServer()
  server.on("error", (error) => resume(Effect.fail(error)))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = address !== null && typeof address === "object" ? address.port : 0
    server.close(() => resume(port > 0 ? Effect.succeed(port) : Effect.fail(new Error("no port"))))
  })
})

/** One PING; succeeds on `+PONG`. */
const ping = (port: number) =>
  Effect.callback<void, Error>((resume) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.setTimeout(500)
    let answer = ""
    const done = (result: Effect.Effect<void, Error>) => {
      socket.destroy()
      resume(result)
    }
    socket.on("connect", () => socket.write("PING\r\n"))
    socket.on("data", (chunk) => {
      answer += chunk.toString("utf8")
      if (answer.includes("\r\n")) done(answer.startsWith("+PONG") ? Effect.void : Effect.fail(new Error(answer)))
    })
    socket.on("timeout", () => done(Effect.fail(new Error("PING timed out"))))
    socket.on("error", (error) => done(Effect.fail(error)))
    return Effect.sync(() => socket.destroy())
  })

const exited = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

/** Starts `redis-server` (killed when the scope closes). */
export const redisServer = (): Effect.Effect<RedisServer, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const dir = yield* tempDir("ets-redis-")
    const port = yield* freePort
    let child: ChildProcess | undefined
    let output = ""

    const start = Effect.gen(function*() {
      const server = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
        { stdio: ["ignore", "pipe", "pipe"] }
      )
      output = ""
      server.stdout?.on("data", (chunk: Buffer) => void (output += chunk.toString("utf8")))
      server.stderr?.on("data", (chunk: Buffer) => void (output += chunk.toString("utf8")))
      child = server
      yield* ping(port).pipe(
        Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo({ duration: "5 seconds" }))),
        Effect.mapError((error) => new Error(`redis-server did not start: ${error.message}\n${output}`))
      )
    })
    const kill = Effect.suspend(() => {
      const running = child
      if (running === undefined) return Effect.void
      child = undefined
      running.kill("SIGKILL")
      return exited(running)
    })
    const signal = (name: NodeJS.Signals) => Effect.sync(() => void child?.kill(name))

    yield* Effect.acquireRelease(start, () => kill)
    return {
      port,
      url: `redis://127.0.0.1:${port}`,
      kill,
      pause: signal("SIGSTOP"),
      resume: signal("SIGCONT"),
      restart: Effect.andThen(kill, start)
    }
  })

let prefixes = 0
/** A Redis key prefix of its own per limiter set, so no test sees another's buckets. */
export const freshPrefix = (label: string): string => `ets-${label}-${process.pid}-${++prefixes}:`

/** A read-only tool allowed `rpm` calls a minute, answering "ran". */
export const limitedTool = (name: string, rpm: number) =>
  Tool.make(name, {
    description: `${rpm} calls a minute`,
    parameters: Schema.Struct({}),
    readOnly: true,
    rateLimitRpm: rpm,
    handler: () => Effect.succeed("ran")
  })
