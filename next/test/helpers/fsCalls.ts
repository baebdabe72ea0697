/**
 * Plays "another process", or a file system that lacks something, at an exact moment, by putting
 * a wrapper in place of one of `node:fs`'s calls (callback or synchronous) for every such call made
 * afterwards (through `replaceBuiltin.ts`). The library code is not touched:
 * what it meets is what a concurrent process would leave on the real file system, or the errno a
 * file system without hard links gives, only at a chosen moment rather than by luck.
 */
import { Effect } from "effect"
import type * as Scope from "effect/Scope"
import { replaceBuiltinExport } from "./replaceBuiltin.js"

/** The callback calls of `node:fs` a test can follow. */
export type FollowedCall = "rename" | "link" | "lstat" | "mkdir" | "open" | "close" | "unlink" | "readlink"

/** The synchronous calls of `node:fs` a test can make fail. */
export type FollowedSyncCall = "readlinkSync" | "openSync" | "readdirSync"

type CallbackCall = (...args: Array<unknown>) => unknown

/** Puts `wrap(original)` in place of `fs[call]`; returns what puts the original back. */
const replaceFsCall = (call: FollowedCall | FollowedSyncCall, wrap: (original: CallbackCall) => CallbackCall): () => void =>
  replaceBuiltinExport("node:fs", call, wrap)

/**
 * From now on, each `fs[call]` runs `act(args)` (its arguments without the callback) once the
 * call has completed, then calls back as it would have. Returns what puts the original back.
 */
const afterFsCall = (call: FollowedCall, act: (args: ReadonlyArray<unknown>) => void): () => void =>
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

/** The error a failing system call gives Node: an `Error` with the errno `code`. */
const errnoError = (call: string, code: string): Error =>
  Object.assign(new Error(`${code}: ${call} failed (a test's file system)`), { code, syscall: call })

/** Whether one of a call's arguments is a path whose last name is `name` (or matches it). */
const names = (args: ReadonlyArray<unknown>, name: string | RegExp): boolean =>
  args.some((arg) =>
    typeof arg === "string" && (typeof name === "string" ? arg.endsWith(`/${name}`) : name.test(arg.slice(arg.lastIndexOf("/") + 1)))
  )

/** The calls a failure picks: every one without a `name`, else those with a path named `name`. */
const picks = (name: string | RegExp | undefined) => (args: ReadonlyArray<unknown>): boolean =>
  name === undefined || names(args, name)

/**
 * From now on, each `fs[call]` that `picked` accepts fails with the errno `code`, as `EPERM` from
 * `link` on a file system without hard links, or `EIO` from a failing disk; with `afterDoing` it
 * does the call's work first (as `close` reporting `EIO` does). Returns what puts the original back.
 */
const failFsCall = (
  call: FollowedCall,
  code: string,
  picked: (args: ReadonlyArray<unknown>) => boolean,
  afterDoing: boolean
): () => void =>
  replaceFsCall(call, (original) => (...args) => {
    const done = args[args.length - 1]
    const given = args.slice(0, -1)
    if (typeof done !== "function" || !picked(given)) return original(...args)
    const fail = () => Reflect.apply(done, undefined, [errnoError(call, code)])
    if (afterDoing) original(...given, fail)
    else setImmediate(fail)
  })

/** For the current scope: what `replace` puts in place of a `node:fs` call, put back when it ends. */
const replacedFor = (replace: () => () => void): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.sync(replace), (restore) => Effect.sync(restore))

/**
 * For the current scope: once, after the first `call` with a path argument whose last name is
 * `name` (either side of a `rename` or `link`), runs `act` (the other process). Gives what
 * tells how many times it ran.
 */
export const onceAfter = (
  call: FollowedCall,
  name: string | RegExp,
  act: () => void
): Effect.Effect<() => number, never, Scope.Scope> => {
  let runs = 0
  return Effect.as(
    replacedFor(() =>
      afterFsCall(call, (args) => {
        if (runs > 0 || !names(args, name)) return
        runs += 1
        act()
      })
    ),
    () => runs
  )
}

/**
 * For the current scope: the `call`s with a path argument whose last name is `name` (every
 * call without one) fail with the errno `code`; with `afterDoing`, after doing their work.
 */
export const failingFor = (
  call: FollowedCall,
  code: string,
  options: { readonly name?: string | RegExp; readonly afterDoing?: boolean } = {}
): Effect.Effect<void, never, Scope.Scope> =>
  replacedFor(() => failFsCall(call, code, picks(options.name), options.afterDoing ?? false))

/**
 * For the current scope: from the first `call` with a path argument whose last name is `name`
 * on, every `failing` call fails with the errno `code` (as `readlink` failing once a file was
 * put in place, so that only the check after it cannot be made).
 */
export const failingFrom = (
  call: FollowedCall,
  name: string | RegExp,
  failing: FollowedCall,
  code: string
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    let restore: (() => void) | undefined
    yield* Effect.addFinalizer(() => Effect.sync(() => restore?.()))
    yield* onceAfter(call, name, () => {
      restore = failFsCall(failing, code, picks(undefined), false)
    })
  })

/**
 * For the current scope: each synchronous `call` with a path argument whose last name is `name`
 * (every one without a name) throws the errno `code` (as `readlinkSync` failing with `EIO`),
 * doing nothing.
 */
export const failingSyncFor = (
  call: FollowedSyncCall,
  code: string,
  name?: string | RegExp
): Effect.Effect<void, never, Scope.Scope> =>
  replacedFor(() =>
    replaceFsCall(call, (original) => (...args) => {
      if (!picks(name)(args)) return original(...args)
      throw errnoError(call, code)
    })
  )
