/**
 * Plays "another process", or a file system that lacks something, at an exact moment, by putting
 * a wrapper in place of one of `node:fs`'s callback calls for every such call made afterwards
 * (the ESM bindings too, through `syncBuiltinESMExports`). The library code is not touched:
 * what it meets is what a concurrent process would leave on the real file system, or the errno a
 * file system without hard links gives, only at a chosen moment rather than by luck.
 */
import { createRequire, syncBuiltinESMExports } from "node:module"

/** The callback calls of `node:fs` a test can follow. */
export type FollowedCall = "rename" | "link" | "lstat" | "mkdir"

type CallbackCall = (...args: Array<unknown>) => void

/** Puts `wrap(original)` in place of `fs[call]`; returns what puts the original back. */
const replaceFsCall = (call: FollowedCall, wrap: (original: CallbackCall) => CallbackCall): () => void => {
  const fs: Record<FollowedCall, CallbackCall> = createRequire(import.meta.url)("node:fs")
  const original = fs[call]
  fs[call] = wrap(original)
  syncBuiltinESMExports()
  return () => {
    fs[call] = original
    syncBuiltinESMExports()
  }
}

/**
 * From now on, each `fs[call]` runs `act(args)` (its arguments without the callback) once the
 * call has completed, then calls back as it would have. Returns what puts the original back.
 */
export const afterFsCall = (call: FollowedCall, act: (args: ReadonlyArray<unknown>) => void): () => void =>
  replaceFsCall(call, (original) => (...args) => {
    const done = args[args.length - 1]
    if (typeof done !== "function") return original(...args)
    const given = args.slice(0, -1)
    original(...given, (...results: Array<unknown>) => {
      try {
        act(given)
      } finally {
        Reflect.apply(done, undefined, results)
      }
    })
  })

/**
 * From now on, each `fs[call]` fails at once with the errno `code` (as `EPERM` from `link` on a
 * file system without hard links), doing nothing. Returns what puts the original back.
 */
export const failFsCall = (call: FollowedCall, code: string): () => void =>
  replaceFsCall(call, () => (...args) => {
    const done = args[args.length - 1]
    const error = Object.assign(new Error(`${code}: ${call} refused (a test's file system)`), { code, syscall: call })
    if (typeof done === "function") setImmediate(() => Reflect.apply(done, undefined, [error]))
  })
