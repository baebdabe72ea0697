/**
 * Plays "another process", or a file system that lacks something, at an exact moment, by putting
 * a wrapper in place of one of `node:fs`'s calls (callback or synchronous) for every such call made
 * afterwards (the ESM bindings too, through `syncBuiltinESMExports`). The library code is not touched:
 * what it meets is what a concurrent process would leave on the real file system, or the errno a
 * file system without hard links gives, only at a chosen moment rather than by luck.
 */
import { Effect } from "effect"
import type * as Scope from "effect/Scope"
import { createRequire, syncBuiltinESMExports } from "node:module"

/** The callback calls of `node:fs` a test can follow. */
export type FollowedCall = "rename" | "link" | "lstat" | "mkdir" | "open" | "close" | "unlink" | "readlink"

/** The synchronous calls of `node:fs` a test can make fail. */
export type FollowedSyncCall = "readlinkSync" | "openSync" | "readdirSync"

type CallbackCall = (...args: Array<unknown>) => unknown

/** Puts `wrap(original)` in place of `fs[call]`; returns what puts the original back. */
const replaceFsCall = <Name extends FollowedCall | FollowedSyncCall>(
  call: Name,
  wrap: (original: CallbackCall) => CallbackCall
): () => void => {
  const fs: Record<Name, CallbackCall> = createRequire(import.meta.url)("node:fs")
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

/** Which calls `failFsCall` fails, and how. */
export interface FailOptions {
  /** Fails only the calls whose arguments (without the callback) pass; the others run as usual. */
  readonly when?: (args: ReadonlyArray<unknown>) => boolean
  /** Does the call's work first and then reports the failure (as `close` reporting `EIO` does). */
  readonly afterDoing?: boolean
}

/**
 * From now on, each `fs[call]` (or those `when` picks) fails with the errno `code`, as `EPERM`
 * from `link` on a file system without hard links, or `EIO` from a failing disk; without
 * `afterDoing` it does nothing first. Returns what puts the original back.
 */
export const failFsCall = (call: FollowedCall, code: string, options: FailOptions = {}): () => void =>
  replaceFsCall(call, (original) => (...args) => {
    const done = args[args.length - 1]
    const given = args.slice(0, -1)
    if (typeof done !== "function" || (options.when !== undefined && !options.when(given))) return original(...args)
    const error = Object.assign(new Error(`${code}: ${call} failed (a test's file system)`), { code, syscall: call })
    const fail = () => Reflect.apply(done, undefined, [error])
    if (options.afterDoing === true) original(...given, fail)
    else setImmediate(fail)
  })

/** For the current scope: what `replace` puts in place of a `node:fs` call, put back when it ends. */
const replacedFor = (replace: () => () => void): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.sync(replace), (restore) => Effect.sync(restore))

/** Whether one of a call's arguments is a path whose last name is `name` (or matches it). */
const names = (args: ReadonlyArray<unknown>, name: string | RegExp): boolean =>
  args.some((arg) =>
    typeof arg === "string" && (typeof name === "string" ? arg.endsWith(`/${name}`) : name.test(arg.slice(arg.lastIndexOf("/") + 1)))
  )

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
 * call without one) fail with the errno `code` (see `failFsCall`).
 */
export const failingFor = (
  call: FollowedCall,
  code: string,
  options: { readonly name?: string | RegExp; readonly afterDoing?: boolean } = {}
): Effect.Effect<void, never, Scope.Scope> => {
  const { name } = options
  return replacedFor(() =>
    failFsCall(call, code, {
      ...(name === undefined ? {} : { when: (args) => names(args, name) }),
      ...(options.afterDoing === undefined ? {} : { afterDoing: options.afterDoing })
    })
  )
}

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
      restore = failFsCall(failing, code)
    })
  })

/**
 * For the current scope: each synchronous `call` (or those whose first argument `when` picks)
 * throws the errno `code` (as `readlinkSync` failing with `EIO`), doing nothing.
 */
export const failingSyncFor = (
  call: FollowedSyncCall,
  code: string,
  when: (first: unknown) => boolean = () => true
): Effect.Effect<void, never, Scope.Scope> =>
  replacedFor(() =>
    replaceFsCall(call, (original) => (...args) => {
      if (!when(args[0])) return original(...args)
      throw Object.assign(new Error(`${code}: ${call} failed (a test's file system)`), { code, syscall: call })
    })
  )
