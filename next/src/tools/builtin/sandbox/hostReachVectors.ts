/**
 * Escape vectors that try to reach or change the host: its globals and modules, host
 * functions, the stack-trace hook, the host's prototypes, and state left for the next call.
 * Each returns what it found, using the word `HOST` for anything that would belong to the host.
 *
 * @since 0.1.0
 */
import { error, result, type SandboxEscapeVector } from "./vectorKinds.js"

/** Every global a host could add, as a guest sees it: all must be `undefined`. */
const HOST_GLOBALS = [
  "process",
  "require",
  "module",
  "exports",
  "global",
  "Buffer",
  "fetch",
  "XMLHttpRequest",
  "WebSocket",
  "WebAssembly",
  "setTimeout",
  "setInterval",
  "queueMicrotask",
  "std",
  "os",
  "print",
  "scriptArgs",
  "__filename",
  "__dirname",
  "Deno",
  "Bun",
  "Worker",
  "importScripts"
]

/** Host reach, prototype pollution and cross-call state. */
export const HOST_REACH_VECTORS: ReadonlyArray<SandboxEscapeVector> = [
  // host reach
  {
    name: "constructor chain to process",
    category: "host-reach",
    description: "this.constructor.constructor is Function; a Function body sees the real global object",
    code: `const g = this.constructor.constructor("return this")();
[this.constructor.constructor("return typeof process")(), typeof g.process, typeof g.require]`,
    expect: result(/^\["undefined","undefined","undefined"\]$/)
  },
  {
    name: "Function('return this') global",
    category: "host-reach",
    description: "the classic sloppy-mode global grab, then every host global on it",
    code: `const g = Function("return this")();
${JSON.stringify(HOST_GLOBALS)}.filter((k) => typeof g[k] !== "undefined")`,
    expect: result(/^\[\]$/)
  },
  {
    name: "host globals by name",
    category: "host-reach",
    description: "typeof of every name a host environment defines",
    code: `${JSON.stringify(HOST_GLOBALS)}.map((k) => typeof globalThis[k]).filter((t) => t !== "undefined")`,
    expect: result(/^\[\]$/)
  },
  {
    name: "globals beyond ECMAScript",
    category: "host-reach",
    description: "own property names of globalThis that are not standard built-ins (console is ours)",
    code: `const standard = new Set(["Object","Function","Array","Number","parseFloat","parseInt","Infinity","NaN",
"undefined","Boolean","String","Symbol","Date","Promise","RegExp","Error","AggregateError","EvalError","RangeError",
"ReferenceError","SyntaxError","TypeError","URIError","InternalError","globalThis","JSON","Math","Intl","ArrayBuffer",
"SharedArrayBuffer","Atomics","Uint8Array","Int8Array","Uint16Array","Int16Array","Uint32Array","Int32Array",
"Float32Array","Float64Array","Uint8ClampedArray","BigUint64Array","BigInt64Array","Float16Array","DataView","Map",
"BigInt","Set","WeakMap","WeakSet","WeakRef","FinalizationRegistry","Proxy","Reflect","decodeURI","decodeURIComponent",
"encodeURI","encodeURIComponent","escape","unescape","eval","isFinite","isNaN","Iterator","console"]);
Object.getOwnPropertyNames(globalThis).filter((k) => !standard.has(k))`,
    expect: result(/^\[\]$/)
  },
  {
    name: "require",
    category: "host-reach",
    description: "CommonJS require of a Node module",
    code: `require("fs").readFileSync("/etc/passwd", "utf8")`,
    expect: error(/ReferenceError: 'require' is not defined/)
  },
  {
    name: "dynamic import",
    category: "host-reach",
    description: "import() of a Node built-in; the sandbox has no module loader",
    code: `import("node:fs").then((fs) => "HOST " + typeof fs.readFileSync)`,
    expect: error(/could not load module/)
  },
  {
    name: "static import",
    category: "host-reach",
    description: "an import declaration in a script",
    code: `import fs from "fs"; fs.readFileSync("/etc/passwd", "utf8")`,
    expect: error(/SyntaxError/)
  },
  {
    name: "Error.prepareStackTrace",
    category: "host-reach",
    description: "V8's stack-trace hook hands out call sites whose getThis() may be a host object",
    code: `Error.prepareStackTrace = (e, frames) => { globalThis.frames = frames; return "hooked" };
const stack = new Error("x").stack;
const frames = globalThis.frames;
[typeof stack, frames === undefined ? "no frames" : frames.map((f) => {
  try { const t = f.getThis(); return t && t.process ? "HOST" : "guest" } catch (e) { return "guest" }
}).join()]`,
    expect: result(/^(?!.*HOST)/)
  },
  {
    name: "console functions' constructors and callers",
    category: "host-reach",
    description: "console.log is the one path to a host function; its constructor, caller and properties",
    code: `const found = [];
try { if (typeof console.log.constructor("return typeof process")() !== "string") found.push("HOST") } catch (e) {}
try { const c = console.log.caller; if (c) found.push("HOST caller") } catch (e) {}
try { const a = console.log.arguments; if (a) found.push("HOST arguments") } catch (e) {}
for (const k of Reflect.ownKeys(console.log)) if (!["length", "name", "prototype"].includes(k)) found.push("HOST " + String(k));
found.join() || "none"`,
    expect: result(/^"none"$/)
  },
  {
    name: "eval and indirect eval",
    category: "host-reach",
    description: "direct and indirect eval see the guest global only",
    code: `[eval("typeof process"), (0, eval)("typeof require"), new Function("return typeof Buffer")()]`,
    expect: result(/^\["undefined","undefined","undefined"\]$/)
  },
  {
    name: "Atomics.wait blocking",
    category: "host-reach",
    description: "blocking the host thread with Atomics.wait on a shared buffer",
    code: `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000)`,
    expect: error(/JavaScript error/)
  },
  // prototype pollution
  {
    name: "Object.prototype pollution",
    category: "prototype-pollution",
    description: "polluting the guest's built-in prototypes must not touch the host's",
    code: `Object.prototype.polluted = "HOST polluted"; Array.prototype.polluted = 1; String.prototype.polluted = 1;
Function.prototype.polluted = 1; ({}).constructor.prototype.viaConstructor = 1; "polluted the guest"`,
    expect: result(/^"polluted the guest"$/)
  },
  {
    name: "__proto__ in the result",
    category: "prototype-pollution",
    description: "a last value with an own __proto__ key, as JSON; the host never parses it into an object",
    code: `JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}')`,
    expect: result(/^\{"__proto__":\{"polluted":"yes"\},"constructor":\{"prototype":\{"polluted":"yes"\}\}\}$/)
  },
  // cross-call state
  {
    name: "state left for the next call",
    category: "state-leak",
    description: "globals, var, lexical bindings and prototype changes must not survive into the next call",
    code: `globalThis.leaked = 1; var leakedVar = 2; let leakedLet = 3; Object.prototype.leakedProto = 4;
console.log = () => {}; JSON.stringify = () => "tampered"; "set"`,
    expect: result(/^"set"$/),
    then: {
      code: `console.log("fresh console");
[typeof leaked, typeof leakedVar, typeof leakedLet, typeof ({}).leakedProto, JSON.stringify({ a: 1 })]`,
      expect: result(/^\["undefined","undefined","undefined","undefined","\{\\"a\\":1\}"\]$/)
    }
  },
]
