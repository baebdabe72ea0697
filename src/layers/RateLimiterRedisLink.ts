/**
 * The Redis connection of `RateLimiter.layerRedis`, kept apart from any call's budget: it is
 * made (and re-made after a drop) in the background, and a call that comes meanwhile waits for it
 * up to `CONNECT_TIMEOUT_MS`, then gets the time it has to ask Redis as its own. Connecting
 * includes measuring Redis's clock against this process's (so a call can tell Redis its deadline
 * on Redis's clock) and loading the limiter's scripts.
 *
 * The client is node-redis's (`redis`), driven directly rather than through `NodeRedis.layer` of
 * `@effect/platform-node`: that layer fails to build while Redis is down, cannot cut a connection
 * whose handshake hangs, and logs a warning at every failed reconnection. Commands go through
 * `effect/persistence`'s `Redis` service (`Redis.make`: its script cache, `EVALSHA`, reloading a
 * script on `NOSCRIPT`) over that client.
 *
 * @since 0.2.0
 */
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Redis from "effect/persistence/Redis"
import type * as Scope from "effect/Scope"
import { performance } from "node:perf_hooks"
import { createClient } from "redis"

/** How long a call waits for a connection (a first one, or one after a drop) to be made. */
export const CONNECT_TIMEOUT_MS = 5_000
/**
 * The longest pause between two reconnection attempts, in milliseconds; also the
 * `retryAfterMs` of a call refused because Redis did not answer (by then it was tried again).
 */
export const RECONNECT_MAX_MS = 1000
/** How long closing the layer waits for the commands in flight before it cuts the connection. */
const CLOSE_TIMEOUT_MS = 1_000

/** Why Redis cannot be asked now: a call's `reason` is "Redis unavailable: " and this. */
export class RedisUnavailable extends Data.TaggedError("RedisUnavailable")<{ readonly reason: string }> {}

/** The words for a connection being re-made (the existing calls' reasons say so). */
export const NOT_CONNECTED = "not connected (reconnecting)"

/** The words for a link whose layer has closed: a call still waiting for a connection is told so. */
export const CLOSED = "closed (the rate limiter's layer was released)"

/** node-redis's reconnection strategy: a pause in ms, or `false` / an `Error` to stop. */
export type ReconnectStrategy = (retries: number, cause: Error) => number | false | Error

/** Where and how to connect, whatever the `RedisConnection` it came from. */
export interface RedisEndpoint {
  readonly host?: string
  readonly port?: number
  readonly path?: string
  readonly db?: number
  readonly username?: string
  readonly password?: string
  /** TLS (`{}`: with the defaults). */
  readonly tls?: object
  /** Kept from a client's options: its own pauses between reconnections. */
  readonly reconnectStrategy?: ReconnectStrategy
}

/** The connection a call asks Redis on. */
export interface RedisLink {
  /** `effect/persistence`'s `Redis` over the current connection. */
  readonly redis: Redis.Redis["Service"]
  /**
   * Waits for the connection (outside the caller's budget: at most `CONNECT_TIMEOUT_MS` from the
   * moment it started being made) and gives Redis's clock minus `performance.now()`, in ms.
   */
  readonly connected: Effect.Effect<number, RedisUnavailable>
}

type Client = ReturnType<typeof createClient>

type State =
  | { readonly _tag: "Connecting"; readonly done: Deferred.Deferred<number, RedisUnavailable> }
  | { readonly _tag: "Ready"; readonly offsetMs: number }
  | { readonly _tag: "Down"; readonly reason: string }

/** Where the connection goes, for a reason: `host:port` (or the socket path). */
const endpointOf = (endpoint: RedisEndpoint): string => {
  if (endpoint.path !== undefined) return endpoint.path
  const host = endpoint.host ?? "127.0.0.1"
  return `${host.includes(":") ? `[${host}]` : host}:${endpoint.port ?? 6379}`
}

const asError = (cause: unknown): Error => cause instanceof Error ? cause : new Error(String(cause))

/** One command on `client` as an Effect (its failure the client's error). */
const command = <A>(run: () => Promise<A>): Effect.Effect<A, Error> => Effect.tryPromise({ try: run, catch: asError })

/**
 * Redis's clock minus `performance.now()`: the midpoint of the quickest of three `TIME` round
 * trips (off by at most half of it; a call's script that this lets run just past the caller's
 * deadline is caught by the caller, which gives a token taken late back).
 */
const clockOffset = (client: Client): Effect.Effect<number, Error> =>
  Effect.map(
    Effect.replicateEffect(
      Effect.gen(function*() {
        const sent = performance.now()
        const reply: unknown = yield* command(() => client.sendCommand(["TIME"]))
        const received = performance.now()
        const [seconds, micros] = Array.isArray(reply) ? reply.map(Number) : []
        if (seconds === undefined || micros === undefined || !Number.isFinite(seconds + micros)) {
          return yield* Effect.fail(new Error(`Redis answered TIME with ${JSON.stringify(reply)}`))
        }
        return { roundTrip: received - sent, offsetMs: seconds * 1000 + micros / 1000 - (sent + received) / 2 }
      }),
      3
    ),
    (samples) => samples.reduce((best, sample) => sample.roundTrip < best.roundTrip ? sample : best).offsetMs
  )

/** The node-redis options of an endpoint (the socket's reconnection strategy is set apart). */
const clientOptions = (endpoint: RedisEndpoint, reconnectStrategy: ReconnectStrategy) => {
  const { db, password, path, tls, username } = endpoint
  const common = { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy }
  const socket = path !== undefined
    ? { ...common, path, tls: false as const }
    : tls !== undefined
    ? { ...tls, ...common, host: endpoint.host ?? "127.0.0.1", port: endpoint.port ?? 6379, tls: true as const }
    : { ...common, host: endpoint.host ?? "127.0.0.1", port: endpoint.port ?? 6379 }
  return {
    socket,
    // A call sends only on a connection that is ready (see `connected`); one sent as it drops
    // fails at once rather than waiting in a queue to be sent late on the next connection.
    disableOfflineQueue: true,
    ...(db === undefined ? {} : { database: db }),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password })
  }
}

/**
 * Opens the limiter's connection (node-redis, reconnecting on its own with pauses up to
 * `RECONNECT_MAX_MS` unless the endpoint brings a strategy) and closes it with the scope.
 * `scripts` are loaded into Redis's script cache at each connection.
 */
export const makeRedisLink = (
  endpoint: RedisEndpoint,
  scripts: ReadonlyArray<string>
): Effect.Effect<RedisLink, never, Scope.Scope> =>
  Effect.gen(function*() {
    const run = yield* FiberSet.makeRuntime<never, unknown, unknown>()
    const where = endpointOf(endpoint)
    // Set when the layer closes: the client then stops reconnecting, so a connection to a Redis
    // that is down cannot keep the process alive after its scope.
    let closing = false
    let client: Client | undefined
    let state: State
    // counts the connections made and lost, so that a setup or timer of an older one is ignored
    let epoch = 0

    const ready = (offsetMs: number) => {
      if (state._tag === "Connecting") Deferred.doneUnsafe(state.done, Effect.succeed(offsetMs))
      state = { _tag: "Ready", offsetMs }
    }
    const down = (reason: string) => {
      if (state._tag === "Down") return
      if (state._tag === "Connecting") Deferred.doneUnsafe(state.done, Effect.fail(new RedisUnavailable({ reason })))
      state = { _tag: "Down", reason }
    }
    /** A connection being made: calls wait for it, up to `CONNECT_TIMEOUT_MS` from now. */
    const connecting = () => {
      const episode = { _tag: "Connecting", done: Deferred.makeUnsafe<number, RedisUnavailable>() } as const
      state = episode
      run(
        Deferred.await(episode.done).pipe(
          Effect.timeout(CONNECT_TIMEOUT_MS),
          Effect.catchTag("TimeoutError", () =>
            Effect.sync(() => {
              if (state === episode) down(`could not connect to ${where} within ${CONNECT_TIMEOUT_MS / 1000} s`)
            })),
          Effect.ignore
        )
      )
    }

    /** Drops `old` for good and makes a new client: for an attempt that hangs or a failed setup. */
    const replace = (old: Client) => {
      if (old !== client || closing) return
      old.destroy()
      open()
    }

    /** On each new connection: learn Redis's clock and load the scripts, then let calls through. */
    const setup = (opened: Client, at: number) =>
      Effect.gen(function*() {
        const offsetMs = yield* clockOffset(opened)
        for (const lua of scripts) yield* command(() => opened.sendCommand(["SCRIPT", "LOAD", lua]))
        return offsetMs
      }).pipe(
        Effect.matchEffect({
          onSuccess: (offsetMs) =>
            Effect.sync(() => {
              if (at === epoch && opened === client && opened.isReady) ready(offsetMs)
            }),
          onFailure: (error) => {
            if (at !== epoch || opened !== client) return Effect.void
            down(`could not connect to ${where}: ${error.message}`)
            return Effect.logWarning("RateLimiter.layerRedis: setting up the Redis connection failed; connecting again", error)
              .pipe(Effect.andThen(Effect.sync(() => replace(opened))))
          }
        })
      )

    const open = (): void => {
      const own = endpoint.reconnectStrategy
      const opened: Client = createClient(clientOptions(endpoint, (retries, cause) =>
        closing || opened !== client
          ? false
          : own === undefined
          ? Math.min(retries * 50, RECONNECT_MAX_MS)
          : own(retries, cause)))
      client = opened
      // Each connection attempt gets `CONNECT_TIMEOUT_MS` to be ready: one whose handshake (or
      // setup) hangs is not ended by the client (its own timeout covers the TCP connect only), so
      // it is cut and made again.
      opened.on("connect", () => {
        const at = ++epoch
        run(Effect.sleep(CONNECT_TIMEOUT_MS).pipe(Effect.andThen(Effect.sync(() => {
          if (at === epoch && state._tag !== "Ready") replace(opened)
        }))))
      })
      opened.on("ready", () => void run(setup(opened, epoch)))
      // A failed attempt (refused, reset, TLS spoken to a plain server) ends the wait of the calls;
      // a lost connection makes them wait for the next one. The client keeps trying in the
      // background and a ready connection lets calls through again.
      opened.on("error", () => {
        if (opened !== client) return
        if (state._tag === "Ready") {
          epoch++
          connecting()
        } else if (state._tag === "Connecting") down(NOT_CONNECTED)
      })
      opened.on("end", () => {
        if (opened === client) down(NOT_CONNECTED)
      })
      run(Effect.ignore(command(() => opened.connect())))
    }
    connecting()
    open()

    const current = (): Effect.Effect<Client, Redis.RedisError> =>
      client === undefined
        ? Effect.fail(new Redis.RedisError({ cause: new Error("The client is closed") }))
        : Effect.succeed(client)
    const notUsed = Effect.fail(new Redis.RedisError({ cause: new Error("RateLimiter.layerRedis only sends commands") }))
    const redis = yield* Redis.make({
      send: <A>(name: string, ...args: ReadonlyArray<string>) =>
        Effect.flatMap(current(), (opened) =>
          Effect.tryPromise({
            try: (): Promise<A> => opened.sendCommand([name, ...args]),
            catch: (cause) => new Redis.RedisError({ cause })
          })),
      subscribe: () => notUsed,
      connect: notUsed
    })

    // Closing waits for the commands in flight (up to `CLOSE_TIMEOUT_MS`); without a connection,
    // or past that, it is logged and the connection is cut, rather than failing or holding the
    // release.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closing = true
        const opened = client
        if (opened === undefined) return Effect.void
        return Effect.suspend(() =>
          opened.isReady ? command(() => opened.close()) : Effect.fail(new Error("The client is not connected"))
        ).pipe(
          // (a finalizer is uninterruptible: the wait is made interruptible so that the timeout can end it)
          Effect.interruptible,
          Effect.timeout(CLOSE_TIMEOUT_MS),
          Effect.catchCause((cause) => Effect.logWarning("RateLimiter.layerRedis: closing the Redis connection failed", cause)),
          Effect.ensuring(Effect.sync(() => {
            client = undefined
            opened.destroy()
            // the connect timer is interrupted with the layer: without this, a call waiting for a
            // connection still being made would wait for ever
            down(CLOSED)
          }))
        )
      })
    )

    const connected = Effect.suspend((): Effect.Effect<number, RedisUnavailable> => {
      switch (state._tag) {
        case "Ready":
          // the client may know of a drop whose event has not reached us yet
          return client?.isReady === true
            ? Effect.succeed(state.offsetMs)
            : Effect.fail(new RedisUnavailable({ reason: NOT_CONNECTED }))
        case "Connecting":
          return Deferred.await(state.done)
        case "Down":
          return Effect.fail(new RedisUnavailable({ reason: state.reason }))
      }
    })
    return { redis, connected }
  })
