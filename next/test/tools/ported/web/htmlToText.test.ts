/**
 * `htmlToText` over its worker (`shared/scriptWorker.ts`, tested on its own), with a stand-in
 * converter (fixtures/misbehavingConverter.cjs): the converter's text is the answer, anything
 * else a failure, and the worker's failures name the conversion.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import { htmlToText } from "../../../../src/tools/ported/web/htmlToText.js"
import { reasonAndMessage } from "../../../helpers/reasonAndMessage.js"

const converter = { module: fileURLToPath(new URL("./fixtures/misbehavingConverter.cjs", import.meta.url)), heapMb: 16 }

const convert = (html: string) => reasonAndMessage(htmlToText(html, undefined, "20 seconds", converter))

// live clock: real worker threads run the stand-in converter
describe("htmlToText", () => {
  it.live("answers the converter's text; an answer that is not text is a failure", () =>
    Effect.gen(function*() {
      expect(yield* convert("<p>x</p>")).toBe("converted: <p>x</p>")
      expect(yield* convert("object")).toEqual(["error", "the converter answered no text"])
    }))

  it.live("the worker's failures name the conversion, with the heap cap given", () =>
    Effect.gen(function*() {
      expect(yield* convert("throw")).toEqual(["error", "converting the page to text failed: converter broke"])
      expect(yield* convert("memory")).toEqual(["memory", "converting the page to text needs more than 16 MiB"])
    }))
})
