/**
 * A real HTTP server on 127.0.0.1 (port 0) for tool tests, started and closed in a Scope.
 * It records every request (method, path, headers, body) and whether the client closed the
 * connection before the response was finished.
 */
import { Deferred, Effect, type Scope } from "effect"
import * as Http from "node:http"
import { pipeline, Readable, type Transform } from "node:stream"

/** One request the server received. */
export interface ReceivedRequest {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
  /** Completed when the connection closed before the response was finished. */
  readonly abandoned: Deferred.Deferred<void>
}

/** Answers one request; may answer later (or never). */
export type Respond = (request: ReceivedRequest, response: Http.ServerResponse) => void

/** A running test server. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  /** The requests received so far, in order. */
  readonly requests: ReadonlyArray<ReceivedRequest>
}

/** Starts a server answering with `respond`; it is closed (connections too) when the scope ends. */
export const testServer = (respond: Respond): Effect.Effect<TestServer, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: Http.Server; readonly info: TestServer }, Error>((resume) => {
      const requests: Array<ReceivedRequest> = []
      const server = Http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const abandoned = Deferred.makeUnsafe<void>()
          const request: ReceivedRequest = {
            method: req.method ?? "",
            path: req.url ?? "",
            headers: req.headers,
            body: Buffer.concat(chunks).toString("utf8"),
            abandoned
          }
          requests.push(request)
          res.on("close", () => {
            if (!res.writableFinished) Deferred.doneUnsafe(abandoned, Effect.void)
          })
          respond(request, res)
        })
      })
      server.on("error", (error) => resume(Effect.fail(error)))
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        if (address === null || typeof address === "string") {
          resume(Effect.fail(new Error(`unexpected server address ${String(address)}`)))
          return
        }
        resume(Effect.succeed({ server, info: { origin: `http://127.0.0.1:${address.port}`, requests } }))
      })
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ info }) => info))

/** Answers with a JSON body. */
export const sendJson = (response: Http.ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

/** Answers with a raw body. */
export const sendText = (response: Http.ServerResponse, status: number, body: string, type = "text/plain"): void => {
  response.writeHead(status, { "content-type": type })
  response.end(body)
}

/**
 * Answers with a body streamed from `source` (backpressure respected, so a huge lazy source
 * is never held in memory); the stream stops when the client goes away.
 */
export const sendStream = (
  response: Http.ServerResponse,
  status: number,
  headers: Http.OutgoingHttpHeaders,
  source: Iterable<Uint8Array> | AsyncIterable<Uint8Array> | Readable,
  ...transforms: ReadonlyArray<Transform>
): void => {
  response.writeHead(status, headers)
  const readable = source instanceof Readable ? source : Readable.from(source)
  // The client closing early is expected here (that is what the tests check): the pipeline is torn down.
  pipeline([readable, ...transforms, response], () => undefined)
}

/** Counts what a lazy source has produced so far. */
export interface Produced {
  bytes: number
}

/**
 * `total` bytes made of `chunk` repeated, produced one chunk at a time as they are pulled;
 * `produced.bytes` counts what was pulled.
 */
export function* repeated(chunk: Uint8Array, total: number, produced: Produced = { bytes: 0 }): Generator<Uint8Array> {
  while (produced.bytes < total) {
    const part = total - produced.bytes >= chunk.length ? chunk : chunk.subarray(0, total - produced.bytes)
    produced.bytes += part.length
    yield part
  }
}
