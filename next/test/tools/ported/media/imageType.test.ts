/**
 * `imageTypeOf` (`media/imageType.ts`): each accepted format by its signature and nothing
 * else, with the signature cut one byte short, one byte wrong, or shifted.
 */
import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { imageTypeOf } from "../../../../src/tools/ported/media/imageType.js"

const bytes = (...parts: ReadonlyArray<string | ReadonlyArray<number>>): Uint8Array =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === "string" ? Array.from(part, (c) => c.charCodeAt(0)) : [...part])))

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

describe("imageTypeOf", () => {
  it("tells PNG, JPEG, WebP and GIF (87a and 89a) by their signatures, with their usual endings", () => {
    expect(imageTypeOf(bytes(PNG, [0, 0, 0, 13]))).toEqual(Option.some({ name: "PNG", extensions: [".png"] }))
    expect(imageTypeOf(bytes(PNG))).toEqual(Option.some({ name: "PNG", extensions: [".png"] }))
    expect(imageTypeOf(bytes([0xff, 0xd8, 0xff, 0xe0]))).toEqual(Option.some({ name: "JPEG", extensions: [".jpg", ".jpeg"] }))
    expect(imageTypeOf(bytes("RIFF", [1, 2, 3, 4], "WEBPVP8 "))).toEqual(Option.some({ name: "WebP", extensions: [".webp"] }))
    expect(imageTypeOf(bytes("GIF87a", [1]))).toEqual(Option.some({ name: "GIF", extensions: [".gif"] }))
    expect(imageTypeOf(bytes("GIF89a"))).toEqual(Option.some({ name: "GIF", extensions: [".gif"] }))
  })

  it("refuses anything else: a signature one byte short or off by one byte, RIFF that is not WebP, other formats", () => {
    for (const [label, input] of [
      ["empty", bytes()],
      ["PNG one byte short", bytes(PNG.slice(0, 7))],
      ["PNG with its last byte wrong", bytes(PNG.slice(0, 7), [0x0b])],
      ["PNG shifted by one", bytes([0], PNG)],
      ["JPEG two bytes", bytes([0xff, 0xd8])],
      ["JPEG third byte wrong", bytes([0xff, 0xd8, 0xfe])],
      ["RIFF WAVE", bytes("RIFF", [1, 2, 3, 4], "WAVEfmt ")],
      ["WEBP without RIFF", bytes("RIFX", [1, 2, 3, 4], "WEBP")],
      ["WebP cut before its WEBP", bytes("RIFF", [1, 2, 3, 4], "WEB")],
      ["GIF88a", bytes("GIF88a")],
      ["BMP", bytes("BM", [0, 0, 0, 0])],
      ["text", bytes("<svg xmlns=")]
    ] as const) {
      expect(imageTypeOf(input), label).toEqual(Option.none())
    }
  })
})
