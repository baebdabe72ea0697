/**
 * Reading an HTTP answer's body with a byte cap, for tools that talk to web services they do
 * not control. The body is read as a stream (`response.stream`); bytes are counted as the
 * stream delivers them, which is after content decoding (fetch inflates `gzip`, `deflate`
 * and `br` bodies itself), so a compressed bomb is cut off at the same cap as a plain body.
 * As soon as the cap is passed, reading stops: the stream is cancelled and the request
 * aborted, and at most `maxBytes` bytes (plus the chunk in flight) are ever held.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Stream from "effect/Stream"

/** The default cap on a body: 1 MiB. */
export const HTTP_BODY_MAX_BYTES = 1024 * 1024

const KIB = 1024
const MIB = 1024 * KIB

/** `bytes` in a human unit ("1 MiB", "512 KiB", "300 bytes"). */
export const formatBytes = (bytes: number): string =>
  bytes >= MIB && bytes % MIB === 0
    ? `${bytes / MIB} MiB`
    : bytes >= KIB && bytes % KIB === 0
    ? `${bytes / KIB} KiB`
    : `${bytes} bytes`

/** The body is larger than the cap (counted after content decoding); nothing past the cap was read. */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{
  readonly maxBytes: number
}> {
  override get message(): string {
    return `the answer is larger than ${formatBytes(this.maxBytes)}`
  }
}

/** The start of a body: at most the cap's bytes, and whether that was all of it. */
export interface BodyPrefix {
  readonly bytes: Uint8Array
  /** `false` when the body went on past the cap (and was cut off there). */
  readonly complete: boolean
}

const concat = (parts: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const part of parts) {
    bytes.set(part, offset)
    offset += part.length
  }
  return bytes
}

/**
 * Reads the body up to `maxBytes` (decoded) bytes and stops there: the stream is cancelled
 * and the request aborted. A response without a body (204, 304) reads as empty.
 */
export const readBodyPrefix = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number = HTTP_BODY_MAX_BYTES
): Effect.Effect<BodyPrefix, HttpClientError.HttpClientError> =>
  Effect.suspend(() => {
    const parts: Array<Uint8Array> = []
    let size = 0
    let complete = true
    const take = (chunk: Uint8Array): boolean => {
      const room = maxBytes - size
      if (chunk.length > room) {
        // (room is never below 0: size stops at maxBytes; at 0 an empty part adds nothing)
        parts.push(chunk.subarray(0, room))
        size = maxBytes
        complete = false
        return false
      }
      parts.push(chunk)
      size += chunk.length
      return true
    }
    return response.stream.pipe(
      Stream.runForEachWhile((chunk) => Effect.sync(() => take(chunk))),
      Effect.catchIf((error) => error.reason._tag === "EmptyBodyError", () => Effect.void),
      Effect.map(() => ({ bytes: concat(parts, size), complete }))
    )
  })

/** Reads the whole body if it is at most `maxBytes` (decoded) bytes; past that, stops and fails with `BodyTooLarge`. */
export const readBodyCapped = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number = HTTP_BODY_MAX_BYTES
): Effect.Effect<Uint8Array, BodyTooLarge | HttpClientError.HttpClientError> =>
  Effect.flatMap(
    readBodyPrefix(response, maxBytes),
    ({ bytes, complete }) => complete ? Effect.succeed(bytes) : Effect.fail(new BodyTooLarge({ maxBytes }))
  )

/** The body decoded as UTF-8 (invalid bytes become U+FFFD), read as `readBodyCapped` does. */
export const readTextCapped = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number = HTTP_BODY_MAX_BYTES
): Effect.Effect<string, BodyTooLarge | HttpClientError.HttpClientError> =>
  Effect.map(readBodyCapped(response, maxBytes), (bytes) => new TextDecoder("utf-8").decode(bytes))

/** The start of the body decoded as UTF-8, read as `readBodyPrefix` does. */
export const readTextPrefix = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number = HTTP_BODY_MAX_BYTES
): Effect.Effect<{ readonly text: string; readonly complete: boolean }, HttpClientError.HttpClientError> =>
  Effect.map(
    readBodyPrefix(response, maxBytes),
    ({ bytes, complete }) => ({ text: new TextDecoder("utf-8").decode(bytes), complete })
  )

/**
 * Drops the body without reading it: cancels the stream and aborts the request, so the
 * connection does not stay open for a body nobody reads. A failure to cancel is of no
 * consequence to the caller and is not reported.
 */
export const discardBody = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> =>
  readBodyPrefix(response, 0).pipe(Effect.asVoid, Effect.orElseSucceed(() => undefined))
