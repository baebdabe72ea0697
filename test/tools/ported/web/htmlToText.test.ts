/**
 * The worker around the HTML converter, with a stand-in converter that misbehaves on demand
 * (fixtures/misbehavingConverter.cjs): each way a worker can end is a typed failure that
 * says what happened, and the worker's output never reaches the host's.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { fileURLToPath } from "node:url"
import { htmlToText } from "../../../../src/tools/ported/web/htmlToText.js"

const converter = { module: fileURLToPath(new URL("./fixtures/misbehavingConverter.cjs", import.meta.url)), heapMb: 16 }

const convert = (html: string) => Effect.either(htmlToText(html, undefined, "20 seconds", converter))

describe("htmlToText's worker", () => {
  it.live("answers the converter's text", () =>
    Effect.gen(function*() {
      expect(yield* convert("<p>x</p>")).toEqual(Either.right("converted: <p>x</p>"))
    }))

  it.live("a converter that throws, exits, answers no text or runs out of memory: a failure that says which", () =>
    Effect.gen(function*() {
      const failure = (html: string) =>
        Effect.map(convert(html), (result) => Either.isLeft(result) ? [result.left.reason, result.left.message] : result)
      expect(yield* failure("throw")).toEqual(["error", "the page could not be converted: converter broke"])
      expect(yield* failure("exit")).toEqual(["error", "the converter stopped (exit code 3)"])
      expect(yield* failure("object")).toEqual(["error", "the converter answered no text"])
      expect(yield* failure("memory")).toEqual(["memory", "the page needs more than 16 MiB to convert"])
    }))

  it.live("what the converter prints stays in the worker", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const spy = (stream: NodeJS.WriteStream) => {
        const write = stream.write.bind(stream)
        stream.write = ((chunk: string | Uint8Array, ...rest: Array<never>) => {
          written.push(String(chunk))
          return write(chunk, ...rest)
        }) as typeof stream.write
        return () => {
          stream.write = write
        }
      }
      const restore = [spy(process.stdout), spy(process.stderr)]
      const result = yield* convert("print").pipe(
        // time for output forwarded from the worker to arrive, if it were forwarded
        Effect.tap(() => Effect.sleep("200 millis")),
        Effect.ensuring(Effect.sync(() => restore.forEach((undo) => undo())))
      )
      expect(result).toEqual(Either.right("printed"))
      expect(written.filter((chunk) => chunk.includes("noise"))).toEqual([])
    }))
})
