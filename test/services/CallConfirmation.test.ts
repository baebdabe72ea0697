/**
 * Confirmation at the moment of an effect, asked directly: outside a call nothing is confirmed;
 * inside one (`CurrentCallConfirmation` provided, as the executor does) the running call's tool
 * is confirmed when its gate says so, asked only then, another tool never is, and a fiber the
 * call forks sees the same confirmation. An unconfirmed effect fails with
 * `ConfirmationRequired` carrying what it would have done.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { ConfirmationRequired } from "../../src/domain/errors.js"
import { confirmEffect, CurrentCallConfirmation, isConfirmed } from "../../src/services/CallConfirmation.js"

/** Runs `effect` as a call of `tool` whose gate answers `answer`, counting how often it is asked. */
const inCall = <A, E>(tool: string, answer: boolean, asked: Array<string>, effect: Effect.Effect<A, E>) =>
  Effect.provideService(effect, CurrentCallConfirmation, {
    tool,
    confirmed: Effect.sync(() => {
      asked.push(tool)
      return answer
    })
  })

describe("outside a call", () => {
  it.effect("nothing is confirmed, and an effect that needs it fails with ConfirmationRequired and its reason", () =>
    Effect.gen(function*() {
      expect(yield* CurrentCallConfirmation).toBeUndefined()
      expect(yield* isConfirmed("append_to_file")).toBe(false)
      const refused = yield* Effect.flip(confirmEffect("append_to_file", "would create notes.txt"))
      expect(refused).toBeInstanceOf(ConfirmationRequired)
      expect(refused).toMatchObject({
        _tag: "ConfirmationRequired",
        code: "CONFIRMATION_REQUIRED",
        tool: "append_to_file",
        reason: "would create notes.txt",
        message: "Confirmation required: would create notes.txt"
      })
    }))
})

describe("inside a call", () => {
  it.effect("the call's tool is confirmed when its gate says so, asked only when an effect needs it", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const [other, own, effect] = yield* inCall(
        "move_file",
        true,
        asked,
        Effect.all([
          isConfirmed("copy_file"),
          isConfirmed("move_file"),
          Effect.exit(confirmEffect("move_file", "would replace b.txt"))
        ])
      )
      expect(other).toBe(false)
      expect(own).toBe(true)
      expect(effect._tag).toBe("Success")
      // another tool's question did not ask the gate
      expect(asked).toEqual(["move_file", "move_file"])
    }))

  it.effect("an unconfirmed call's effect fails with its reason; another tool's effect too", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const refused = yield* inCall(
        "download_file",
        false,
        asked,
        Effect.flip(confirmEffect("download_file", "would replace a.bin"))
      )
      expect(refused).toMatchObject({ tool: "download_file", reason: "would replace a.bin" })
      const elsewhere = yield* inCall(
        "download_file",
        true,
        asked,
        Effect.flip(confirmEffect("generate_image", "would replace b.png"))
      )
      expect(elsewhere).toMatchObject({ tool: "generate_image", reason: "would replace b.png" })
      expect(asked).toEqual(["download_file"])
    }))

  it.effect("a fiber the call forks sees the call's confirmation; the caller after the call does not", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const fiber = yield* inCall("append_to_file", true, asked, Effect.forkChild(isConfirmed("append_to_file")))
      expect(yield* Fiber.join(fiber)).toBe(true)
      expect(yield* isConfirmed("append_to_file")).toBe(false)
    }))
})
