/**
 * Denial-of-service vectors: endless loops in every place guest code can run (plain, in
 * try/finally, in promise jobs, in the regular expression engine, inside native built-ins,
 * in getters and `toJSON` reached while the result is serialized), memory bombs of several
 * shapes, deep recursion and nesting, huge sources, and output floods.
 *
 * @since 0.1.0
 */
import {
  error,
  errorOrMemory,
  result,
  type SandboxEscapeVector,
  STACK,
  TIMEOUT,
  TIMEOUT_OR_MEMORY
} from "./vectorKinds.js"

/** CPU, serialization, memory, stack, source and output attacks. */
export const DENIAL_OF_SERVICE_VECTORS: ReadonlyArray<SandboxEscapeVector> = [
  // cpu
  {
    name: "infinite loop",
    category: "cpu",
    description: "while (true) {}",
    code: `while (true) {}`,
    expect: TIMEOUT
  },
  {
    name: "infinite loop in try/catch/finally",
    category: "cpu",
    description: "a loop that catches every exception and restarts itself from finally",
    code: `for (;;) { try { while (true) {} } catch (e) { continue } finally { continue } }`,
    expect: TIMEOUT
  },
  {
    name: "promise job loop",
    category: "cpu",
    description: "a promise reaction that schedules itself forever",
    code: `function again() { Promise.resolve().then(again) } again(); "scheduled"`,
    expect: TIMEOUT
  },
  {
    name: "async loop",
    category: "cpu",
    description: "an async function awaiting forever in a loop, returned as the last value",
    code: `(async () => { for (;;) await null })()`,
    expect: TIMEOUT
  },
  {
    name: "microtask flood",
    category: "cpu",
    description: "every job schedules two more",
    code: `function flood() { Promise.resolve().then(flood); Promise.resolve().then(flood) } flood()`,
    expect: TIMEOUT_OR_MEMORY
  },
  {
    name: "ReDoS",
    category: "cpu",
    description: "catastrophic backtracking in the regular expression engine",
    code: `/(a+)+$/.test("a".repeat(40) + "b")`,
    expect: TIMEOUT
  },
  {
    name: "long native work",
    category: "cpu",
    description: "one native call that runs for minutes without reaching the interrupt handler",
    code: `new Array(1e9) + ""`,
    expect: TIMEOUT_OR_MEMORY
  },
  {
    name: "sort comparator loop",
    category: "cpu",
    description: "guest code running inside a native built-in",
    code: `[3, 2, 1].sort(() => { for (;;) {} })`,
    expect: TIMEOUT
  },
  {
    name: "finalizer loop",
    category: "cpu",
    description: "a FinalizationRegistry callback that loops, reached while the runtime is torn down",
    code: `const registry = new FinalizationRegistry(() => { for (;;) {} });
for (let i = 0; i < 100; i++) registry.register({}, i); "registered"`,
    expect: result(/^"registered"$/)
  },
  // code that runs while the host reads the result
  {
    name: "looping getter in the last value",
    category: "serialization",
    description: "a getter that never returns, reached when the result is serialized",
    code: `({ get x() { for (;;) {} } })`,
    expect: TIMEOUT
  },
  {
    name: "throwing getter in the last value",
    category: "serialization",
    description: "a getter that throws while the result is serialized",
    code: `({ get x() { throw new Error("from a getter") } })`,
    expect: error(/could not be turned into JSON: Error: from a getter/)
  },
  {
    name: "looping toJSON",
    category: "serialization",
    description: "toJSON that never returns",
    code: `({ toJSON() { for (;;) {} } })`,
    expect: TIMEOUT
  },
  {
    name: "huge toJSON",
    category: "serialization",
    description: "toJSON returning a 10 MB string; the result is capped",
    code: `({ toJSON() { return "x".repeat(10000000) } })`,
    // 10 MB built and copied in the guest: well under a second alone, but not on a loaded machine
    timeoutSec: 5,
    expect: result(/more characters\)$/)
  },
  {
    name: "looping Proxy traps in the last value",
    category: "serialization",
    description: "a Proxy whose traps never return",
    code: `new Proxy({}, { get() { for (;;) {} }, ownKeys() { for (;;) {} } })`,
    expect: TIMEOUT
  },
  {
    name: "thrown Proxy",
    category: "serialization",
    description: "a thrown value whose traps loop while the error is described",
    code: `throw new Proxy({}, { get() { for (;;) {} }, getPrototypeOf() { for (;;) {} } })`,
    expect: TIMEOUT
  },
  {
    name: "error with a throwing message getter",
    category: "serialization",
    description: "a thrown Error whose message getter throws",
    code: `throw Object.defineProperty(new Error("x"), "message", { get() { throw new Error("inner") } })`,
    expect: error(/an error whose properties threw/)
  },
  // memory
  {
    name: "array growth",
    category: "memory",
    description: "pushing arrays forever",
    code: `const a = []; for (;;) a.push(new Array(1000).fill(1))`,
    expect: TIMEOUT_OR_MEMORY
  },
  {
    name: "string doubling",
    category: "memory",
    description: "s += s until the engine refuses",
    code: `let s = "x"; for (;;) s += s`,
    expect: errorOrMemory(/string too long/)
  },
  {
    name: "object map",
    category: "memory",
    description: "a Map and an object with ever more entries",
    code: `const m = new Map(); const o = {}; for (let i = 0; ; i++) { m.set(i, { i }); o["k" + i] = i }`,
    expect: TIMEOUT_OR_MEMORY
  },
  {
    name: "typed arrays",
    category: "memory",
    description: "8 MB typed arrays until memory runs out",
    code: `const xs = []; for (;;) xs.push(new Float64Array(1 << 20))`,
    expect: TIMEOUT_OR_MEMORY
  },
  {
    name: "one huge typed array",
    category: "memory",
    description: "a single 1 GB allocation",
    code: `new Uint8Array(2 ** 30).length`,
    expect: errorOrMemory(/RangeError/)
  },
  {
    name: "out-of-memory swallowed in a loop",
    category: "memory",
    description: "catching every allocation failure and allocating again",
    code: `const keep = []; for (;;) { try { keep.push(new Array(100000).fill(0)) } catch (e) {} }`,
    expect: TIMEOUT_OR_MEMORY
  },
  // stack
  {
    name: "deep recursion",
    category: "stack",
    description: "unbounded recursion",
    code: `function f() { return f() } f()`,
    expect: STACK
  },
  {
    name: "stack overflow caught and retried",
    category: "stack",
    description: "recursion that catches its own overflow and recurses again",
    code: `function f() { try { return f() } catch (e) { return f() } } f()`,
    expect: { outcome: "error", message: /did not finish within|stack overflow/ }
  },
  {
    name: "deeply nested source",
    category: "stack",
    description: "100000 nested brackets for the parser",
    code: `${"[".repeat(100000)}${"]".repeat(100000)}`,
    expect: STACK
  },
  {
    name: "deep JSON.parse",
    category: "stack",
    description: "JSON.parse of 100000 nested arrays",
    code: `JSON.parse("[".repeat(100000) + "]".repeat(100000))`,
    expect: STACK
  },
  {
    name: "nested result",
    category: "serialization",
    description: "a last value nested 2000 levels deep comes back as (capped) JSON text",
    code: `let v = []; for (let i = 0; i < 2000; i++) v = [v]; v`,
    timeoutSec: 5,
    expect: result(/^\[{2001}\]{2001}$/)
  },
  {
    name: "deeply nested result",
    category: "serialization",
    description: "a last value nested 100000 levels deep: QuickJS's JSON.stringify is quadratic in the depth " +
      "and not interruptible there, so the host's deadline ends it, or, on a quiet fast machine, the guest's " +
      "stack limit is reached first (a clear error either way, the host never blocks)",
    code: `let v = []; for (let i = 0; i < 100000; i++) v = [v]; v`,
    expect: errorOrMemory(/did not finish within|could not be turned into JSON: InternalError: stack overflow/)
  },
  // source size
  {
    name: "multi-MB source",
    category: "source",
    description: "a 5 MB program is refused before it reaches the sandbox",
    code: `${"1+".repeat(2500000)}1`,
    expect: error(/code is \d+ bytes; the limit is/)
  },
  {
    name: "large source under the limit",
    category: "source",
    description: "a 900 KB expression is parsed and run",
    code: `${"1+".repeat(450000)}1`,
    timeoutSec: 5,
    expect: result(/^450001$/)
  },
  // output
  {
    name: "log flood forever",
    category: "output",
    description: "console.log in an endless loop",
    code: `for (;;) console.log("x".repeat(100))`,
    expect: TIMEOUT
  },
  {
    name: "many log lines",
    category: "output",
    description: "200000 lines; the output is capped with a note",
    code: `for (let i = 0; i < 200000; i++) console.log("line", i); "done"`,
    timeoutSec: 5,
    expect: result(/^"done"$/)
  },
  {
    name: "one huge log line",
    category: "output",
    description: "a 10 MB line; the output is capped with a note",
    code: `console.log("y".repeat(10000000)); "logged"`,
    // 10 MB built and copied in the guest: well under a second alone, but not on a loaded machine
    timeoutSec: 5,
    expect: result(/^"logged"$/)
  },
  {
    name: "looping getter in a logged object",
    category: "output",
    description: "console.log of an object whose getter never returns",
    code: `console.log({ get x() { for (;;) {} } })`,
    expect: TIMEOUT
  }
]
