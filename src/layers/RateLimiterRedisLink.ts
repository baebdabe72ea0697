/**
 * The Redis connection of `RateLimiter.layerRedis`, kept apart from any call's budget: it is
 * made (and re-made after a drop) in the background, and a call that comes meanwhile waits for it
 * up to `CONNECT_TIMEOUT_MS`, then gets the time it has to ask Redis as its own. Connecting
 * includes measuring Redis's clock against this process's (so a call can tell Redis its deadline
 * on Redis's clock) and loading the limiter's scripts.
 *
 * @since 0.2.0
 */
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import type * as Scope from "effect/Scope"
import { Redis, type RedisOptions } from "ioredis"
import { performance } from "node:perf_hooks"

/** How long a call waits for a connection (a first one, or one after a drop) to be made. */
export const CONNECT_TIMEOUT_MS = 5_000
/**
 * The longest pause between two reconnection attempts, in milliseconds; also the
 * `retryAfterMs` of a call refused because Redis did not answer (by then it was tried again).
 */
export const RECONNECT_MAX_MS = 1000
/** How long closing the layer waits for Redis to acknowledge `QUIT` before it cuts the connection. */
const QUIT_TIMEOUT_MS = 1_000

/** Why Redis cannot be asked now: a call's `reason` is "Redis unavailable: " and this. */
export class RedisUnavailable extends Data.TaggedError("RedisUnavailable")<{ readonly reason: string }> {}

/** The words for a connection being re-made (the existing calls' reasons say so). */
export const NOT_CONNECTED = "not connected (reconnecting)"

/** The connection a call asks Redis on. */
export interface RedisLink {
  readonly client: Redis
  /**
   * Waits for the connection (outside the caller's budget: at most `CONNECT_TIMEOUT_MS` from the
   * moment it started being made) and gives Redis's clock minus `performance.now()`, in ms.
   */
  readonly connected: Effect.Effect<number, RedisUnavailable>
}

type State =
  | { readonly _tag: "Connecting"; readonly done: Deferred.Deferred<number, RedisUnavailable> }
  | { readonly _tag: "Ready"; readonly offsetMs: number }
  | { readonly _tag: "Down"; readonly reason: string }

/** Where the connection goes, for a reason: `host:port` (or the socket path). */
const endpointOf = (options: RedisOptions): string => {
  if (options.path !== undefined) return options.path
  const host = options.host ?? "127.0.0.1"
  return `${host.includes(":") ? `[${host}]` : host}:${options.port ?? 6379}`
}

const asError = (cause: unknown): Error => cause instanceof Error ? cause : new Error(String(cause))

/** One Redis command as an Effect (its failure the client's error). */
export const command = <A>(run: () => Promise<A>): Effect.Effect<A, Error> =>
  Effect.tryPromise({ try: run, catch: asError })

/**
 * Redis's clock minus `performance.now()`: the midpoint of the quickest of three `TIME` round
 * trips (off by at most half of it; a call's script that this lets run just past the caller's
 * deadline is caught by the caller, which gives a token taken late back).
 */
const clockOffset = (client: Redis): Effect.Effect<number, Error> =>
  Effect.map(
    Effect.replicateEffect(
      Effect.gen(function*() {
        const sent = performance.now()
        const reply: unknown = yield* command(() => client.time())
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

/**
 * Opens the limiter's connection (ioredis, reconnecting on its own with pauses up to
 * `RECONNECT_MAX_MS` unless the options bring a strategy) and closes it with the scope.
 * `scripts` are loaded into Redis's script cache at each connection.
 */
export const makeRedisLink = (
  options: RedisOptions,
  scripts: ReadonlyArray<string>
): Effect.Effect<RedisLink, never, Scope.Scope> =>
  Effect.gen(function*() {
    const run = yield* FiberSet.makeRuntime<never, unknown, never>()
    const endpoint = endpointOf(options)
    // Set when the layer closes: the client then stops reconnecting, so a connection to a Redis
    // that is down cannot keep the process alive after its scope.
    let closing = false
    // A client's own command timeout would drop the answer of a command that comes after its
    // caller gave up, which the store reads to give a late token back: calls time out themselves.
    const { retryStrategy: retry, commandTimeout: _dropped, ...own } = options
    const client = new Redis({
      connectTimeout: CONNECT_TIMEOUT_MS,
      ...own,
      // connected below, once the handlers are on
      lazyConnect: true,
      // A call sends only on a connection that is ready (see `connected`); one sent as it drops
      // fails at once rather than waiting in a queue to be sent late.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // a command in flight when the connection is lost fails (maxRetriesPerRequest 0); it is
      // never sent again on the next connection, where it would run late
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) =>
        closing ? null : retry === undefined ? Math.min(attempt * 50, RECONNECT_MAX_MS) : retry(attempt)
    })

    let state: State
    // counts the connections lost, so that a setup finishing after its connection closed is ignored
    let drops = 0

    const ready = (offsetMs: number) => {
      if (state._tag === "Connecting") Deferred.unsafeDone(state.done, Exit.succeed(offsetMs))
      state = { _tag: "Ready", offsetMs }
    }
    const down = (reason: string) => {
      if (state._tag === "Down") return
      if (state._tag === "Connecting") Deferred.unsafeDone(state.done, Exit.fail(new RedisUnavailable({ reason })))
      state = { _tag: "Down", reason }
    }
    /** A connection being made: calls wait for it, up to `CONNECT_TIMEOUT_MS` from now. */
    const connecting = () => {
      const episode = { _tag: "Connecting", done: Deferred.unsafeMake<number, RedisUnavailable>(FiberId.none) } as const
      state = episode
      run(
        Deferred.await(episode.done).pipe(
          Effect.timeout(CONNECT_TIMEOUT_MS),
          Effect.catchAll((error) =>
            Effect.sync(() => {
              if (error._tag === "TimeoutException" && state === episode) {
                down(`could not connect to ${endpoint} within ${CONNECT_TIMEOUT_MS / 1000} s`)
              }
            })
          )
        )
      )
    }

    /** On each new connection: learn Redis's clock and load the scripts, then let calls through. */
    const setup = (drop: number) =>
      Effect.gen(function*() {
        const offsetMs = yield* clockOffset(client)
        for (const lua of scripts) yield* command(() => client.script("LOAD", lua))
        return offsetMs
      }).pipe(
        Effect.matchEffect({
          onSuccess: (offsetMs) =>
            Effect.sync(() => {
              if (drop === drops && client.status === "ready") ready(offsetMs)
            }),
          onFailure: (error) => {
            if (drop !== drops) return Effect.void
            down(`could not connect to ${endpoint}: ${error.message}`)
            return Effect.logWarning("RateLimiter.layerRedis: setting up the Redis connection failed; connecting again", error)
              .pipe(Effect.zipRight(Effect.sync(() => client.disconnect(true))))
          }
        })
      )

    // Each connection attempt gets `CONNECT_TIMEOUT_MS` to be ready: one whose handshake (or
    // setup) hangs is not ended by the client (its own timeout covers the TCP connect only), so
    // it is cut and made again.
    let attempts = 0
    client.on("connecting", () => {
      const attempt = ++attempts
      run(
        Effect.sleep(CONNECT_TIMEOUT_MS).pipe(
          Effect.zipRight(Effect.sync(() => {
            const underWay = client.status === "connecting" || client.status === "connect" || client.status === "ready"
            if (attempt === attempts && underWay && state._tag !== "Ready") client.disconnect(true)
          }))
        )
      )
    })
    connecting()
    client.on("ready", () => void run(setup(drops)))
    // A failed attempt (refused, reset, TLS spoken to a plain server) ends the wait of the calls;
    // the client keeps trying in the background and a ready connection lets calls through again.
    client.on("error", () => {
      if (state._tag === "Connecting") down(NOT_CONNECTED)
    })
    client.on("close", () => {
      drops++
      if (state._tag === "Ready") connecting()
      else down(NOT_CONNECTED)
    })
    client.on("end", () => down(NOT_CONNECTED))
    // its failure is also emitted as "error", handled above
    run(Effect.ignore(command(() => client.connect())))

    // Closing sends QUIT, which fails (or hangs, on a stalled Redis) when Redis is not there:
    // that is logged, and the connection is then cut, rather than failing or holding the release.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closing = true
      }).pipe(
        // (a finalizer is uninterruptible: the wait for the answer is made interruptible so
        // that the timeout can end it)
        Effect.zipRight(command(() => client.quit()).pipe(Effect.interruptible, Effect.timeout(QUIT_TIMEOUT_MS))),
        Effect.catchAllCause((cause) =>
          Effect.logWarning("RateLimiter.layerRedis: closing the Redis connection failed", cause)
        ),
        Effect.ensuring(Effect.sync(() => client.disconnect()))
      )
    )

    const connected = Effect.suspend((): Effect.Effect<number, RedisUnavailable> => {
      switch (state._tag) {
        case "Ready":
          // the client may know of a drop whose event has not reached us yet
          return client.status === "ready"
            ? Effect.succeed(state.offsetMs)
            : Effect.fail(new RedisUnavailable({ reason: NOT_CONNECTED }))
        case "Connecting":
          return Deferred.await(state.done)
        case "Down":
          return Effect.fail(new RedisUnavailable({ reason: state.reason }))
      }
    })
    return { client, connected }
  })
