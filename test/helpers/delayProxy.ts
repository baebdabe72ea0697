/**
 * A TCP proxy on 127.0.0.1 in front of a test's own server, for the budget tests of
 * `RateLimiter.layerRedis`: it can hold a new connection before forwarding it (a slow connect or
 * handshake), delay the server's replies, and drop every open connection. Closed with the scope.
 */
import { Effect, type Scope } from "effect"
import * as net from "node:net"

/** A running proxy; the delays apply from the moment they are set. */
export interface DelayProxy {
  readonly port: number
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** How long a new connection waits before it is forwarded (`Infinity`: never). */
  connectDelayMs: number
  /** How long each chunk the server sends waits before it reaches the client. */
  replyDelayMs: number
  /** Closes every open connection (both sides), as a network drop would. */
  readonly dropAll: Effect.Effect<void>
}

/** Starts a proxy to `127.0.0.1:targetPort`. */
export const delayProxy = (
  targetPort: number,
  initial: { readonly connectDelayMs?: number; readonly replyDelayMs?: number } = {}
): Effect.Effect<DelayProxy, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const sockets = new Set<net.Socket>()
    const timers = new Set<NodeJS.Timeout>()
    const later = (ms: number, run: () => void) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        run()
      }, ms)
      timers.add(timer)
    }
    const track = (socket: net.Socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.on("error", () => socket.destroy())
    }

    // read at each connection and each reply, so a test can change them as it goes
    const delays = { connectDelayMs: initial.connectDelayMs ?? 0, replyDelayMs: initial.replyDelayMs ?? 0 }

    const forward = (client: net.Socket, pending: Array<Buffer>) => {
      if (client.destroyed) return
      const server = net.connect(targetPort, "127.0.0.1")
      track(server)
      for (const chunk of pending) server.write(chunk)
      client.removeAllListeners("data")
      client.on("data", (chunk: Buffer) => server.write(chunk))
      // replies keep their order: each is sent no earlier than the one before it
      let releaseAt = 0
      server.on("data", (chunk: Buffer) => {
        releaseAt = Math.max(releaseAt, Date.now() + delays.replyDelayMs)
        const wait = releaseAt - Date.now()
        if (wait <= 0) client.write(chunk)
        else later(wait, () => void (client.destroyed || client.write(chunk)))
      })
      server.on("close", () => client.destroy())
      client.on("close", () => server.destroy())
    }

    const listener = net.createServer((client) => {
      track(client)
      const pending: Array<Buffer> = []
      client.on("data", (chunk: Buffer) => void pending.push(chunk))
      const delay = delays.connectDelayMs
      if (delay === 0) forward(client, pending)
      else if (Number.isFinite(delay)) later(delay, () => forward(client, pending))
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number, Error>((resume) => {
        listener.on("error", (error) => resume(Effect.fail(error)))
        listener.listen(0, "127.0.0.1", () => {
          const address = listener.address()
          if (address === null || typeof address === "string") return resume(Effect.fail(new Error("no address")))
          resume(Effect.succeed(address.port))
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          for (const timer of timers) clearTimeout(timer)
          for (const socket of sockets) socket.destroy()
          listener.close(() => resume(Effect.void))
        })
    )
    const dropAll = Effect.sync(() => {
      for (const socket of sockets) socket.destroy()
    })
    return Object.assign(delays, { port, url: `redis://127.0.0.1:${port}`, dropAll })
  })
