import { describe, expect, it } from "@effect/vitest"
import { modelText } from "../../../src/tools/shared/sanitize.js"

describe("modelText", () => {
  it("makes every other line break a line feed, so that no line is written over another", () => {
    expect(modelText("one\r\ntwo\rthree\u000bfour\u000cfive\u0085six\nseven")).toBe("one\ntwo\nthree\nfour\nfive\nsix\nseven")
    expect(modelText("progress 10%\rprogress 100%\r\n")).toBe("progress 10%\nprogress 100%\n")
  })

  it("keeps tabs and line feeds, and drops the other control characters", () => {
    expect(modelText("a\tb\nc\u0007d\u001b[31mred\u001b[0m")).toBe("a\tb\ncdred")
  })
})
