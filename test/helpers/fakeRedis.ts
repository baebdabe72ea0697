/**
 * A scripted Redis on 127.0.0.1 (or a Unix socket): it reads RESP commands, records them per
 * connection, and answers each with what the test's `answer` gives (a raw RESP reply, a delayed
 * one, nothing, or a cut connection); the commands a client sends while connecting (HELLO,
 * CLIENT SETINFO, SELECT, …) get `+OK` unless `answer` says otherwise. Closed with the scope.
 */
import { Effect, type Scope } from "effect"
import * as net from "node:net"

/** One accepted connection. */
export interface FakeConnection {
  /** 0 for the first connection, 1 for the next, … */
  readonly index: number
  /** The commands received so far, in order. */
  readonly commands: Array<ReadonlyArray<string>>
  /** The first byte the client sent (0x16 opens a TLS handshake). */
  firstByte: number | undefined
  readonly socket: net.Socket
}

/** What to answer: a raw RESP reply, a reply after `afterMs`, nothing, or the connection cut. */
export type FakeAnswer = string | { readonly afterMs: number; readonly reply: string } | "silence" | "cut" | undefined

export interface FakeRedis {
  /** `redis://127.0.0.1:<port>` (empty for a Unix socket). */
  readonly url: string
  readonly port: number
  readonly connections: Array<FakeConnection>
  /** Cuts every open connection. */
  readonly cutAll: () => void
}

/** RESP replies. */
export const bulk = (value: string): string => `$${Buffer.byteLength(value)}\r\n${value}\r\n`
export const array = (...values: ReadonlyArray<string>): string => `*${values.length}\r\n${values.map(bulk).join("")}`

/** The complete commands (arrays of bulk strings) at the start of `buffer`, and what is left. */
export const parseCommands = (buffer: string): { readonly commands: Array<Array<string>>; readonly rest: string } => {
  const commands: Array<Array<string>> = []
  let at = 0
  for (;;) {
    const header = /^\*(\d+)\r\n/.exec(buffer.slice(at))
    if (header === null) break
    let cursor = at + header[0].length
    const args: Array<string> = []
    for (let i = 0; i < Number(header[1]); i++) {
      const length = /^\$(\d+)\r\n/.exec(buffer.slice(cursor))
      if (length === null || buffer.length < cursor + length[0].length + Number(length[1]) + 2) break
      cursor += length[0].length
      args.push(buffer.slice(cursor, cursor + Number(length[1])))
      cursor += Number(length[1]) + 2
    }
    if (args.length < Number(header[1])) break
    commands.push(args)
    at = cursor
  }
  return { commands, rest: buffer.slice(at) }
}

/** INFO's answer of a server that has finished loading. */
export const INFO = "# Server\r\nloading:0\r\n"

/** The default answers: INFO says loaded, TIME is 1700000000 s, SCRIPT LOAD gives a sha, the rest `+OK`. */
const byDefault = (command: ReadonlyArray<string>): string => {
  const name = (command[0] ?? "").toUpperCase()
  if (name === "INFO") return bulk(INFO)
  if (name === "TIME") return array("1700000000", "0")
  if (name === "SCRIPT") return bulk("0".repeat(40))
  return "+OK\r\n"
}

/** Starts the server on 127.0.0.1 (a free port), or on the Unix socket `path`. */
export const fakeRedis = (
  answer: (command: ReadonlyArray<string>, connection: FakeConnection) => FakeAnswer = () => undefined,
  path?: string
): Effect.Effect<FakeRedis, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const connections: Array<FakeConnection> = []
    const sockets = new Set<net.Socket>()
    const server = net.createServer((socket) => {
      const connection: FakeConnection = { index: connections.length, commands: [], firstByte: undefined, socket }
      connections.push(connection)
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.on("error", () => undefined)
      let buffer = ""
      socket.on("data", (chunk: Buffer) => {
        connection.firstByte ??= chunk[0]
        const parsed = parseCommands(buffer + chunk.toString("utf8"))
        buffer = parsed.rest
        for (const command of parsed.commands) {
          connection.commands.push(command)
          const reply = answer(command, connection) ?? byDefault(command)
          if (reply === "cut") socket.destroy()
          else if (reply === "silence") continue
          else if (typeof reply === "string") socket.write(reply)
          else setTimeout(() => socket.writable && socket.write(reply.reply), reply.afterMs)
        }
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number, Error>((resume) => {
        server.on("error", (error) => resume(Effect.fail(error)))
        const listening = () => {
          const address = server.address()
          resume(Effect.succeed(address !== null && typeof address === "object" ? address.port : 0))
        }
        if (path === undefined) server.listen(0, "127.0.0.1", listening)
        else server.listen(path, listening)
      }),
      () =>
        Effect.callback<void>((resume) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resume(Effect.void))
        })
    )
    return {
      url: path === undefined ? `redis://127.0.0.1:${port}` : "",
      port,
      connections,
      cutAll: () => {
        for (const socket of sockets) socket.destroy()
      }
    }
  })
