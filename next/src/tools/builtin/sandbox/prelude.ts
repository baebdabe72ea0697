/**
 * The guest-side prelude: JavaScript evaluated in each fresh context before the user's code.
 * It installs `console` and returns the two helpers the worker calls afterwards, so every
 * value leaves the guest as a plain string built inside the guest:
 *
 * - `serialize(value)`: the value as JSON text (BigInts as decimal strings), capped; `undefined`
 *   when the value has no JSON form;
 * - `describe(thrown)`: a thrown value as `Name: message` plus the first lines of its stack.
 *
 * The helpers keep their own references to `JSON.stringify`, `String` and friends, taken before
 * the user's code runs, so replacing globals only changes what the user's own code sees.
 * The prelude is called with `write(line)`, the only host function the guest can reach (through
 * the `console` closure); `write` returns `true` once the output is full.
 *
 * @since 0.1.0
 */

/** Source of a function `(write, stdoutMax, resultMax) => { serialize, describe }`. */
export const PRELUDE_SOURCE = String.raw`(function (write, stdoutMax, resultMax) {
  "use strict";
  const stringify = JSON.stringify;
  const StringOf = String;
  const ErrorCtor = Error;
  const call = Function.prototype.call;
  const slice = call.bind(String.prototype.slice);
  const split = call.bind(String.prototype.split);
  const join = call.bind(Array.prototype.join);
  const arraySlice = call.bind(Array.prototype.slice);
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;

  const replacer = function (key, value) {
    return typeof value === "bigint" ? StringOf(value) : value;
  };
  const cap = function (text, max) {
    return text.length > max ? slice(text, 0, max) + "... (" + (text.length - max) + " more characters)" : text;
  };
  const safeString = function (value) {
    try {
      return StringOf(value);
    } catch (e) {
      return "[a value that cannot be printed]";
    }
  };
  const errorText = function (error) {
    let name, message, stack;
    try {
      name = error.name;
      message = error.message;
      stack = error.stack;
    } catch (e) {
      return "an error whose properties threw";
    }
    let text = (typeof name === "string" && name !== "" ? name : "Error") +
      (typeof message === "string" && message !== "" ? ": " + message : "");
    if (typeof stack === "string" && stack !== "") {
      text += "\n" + join(arraySlice(split(stack, "\n"), 0, 6), "\n");
    }
    return text.length > 0 && text[text.length - 1] === "\n" ? slice(text, 0, text.length - 1) : text;
  };
  const format = function (value) {
    if (typeof value === "string") return value;
    if (typeof value === "function") return "[Function" + (value.name ? ": " + value.name : " (anonymous)") + "]";
    if (typeof value !== "object" || value === null) return safeString(value);
    if (value instanceof ErrorCtor) return errorText(value);
    try {
      const json = stringify(value, replacer);
      return json === undefined ? safeString(value) : json;
    } catch (e) {
      return safeString(value);
    }
  };

  let full = false;
  const log = function () {
    if (full) return;
    let line = "";
    for (let i = 0; i < arguments.length; i++) {
      if (i > 0) line += " ";
      line += format(arguments[i]);
      if (line.length > stdoutMax) {
        line = slice(line, 0, stdoutMax);
        break;
      }
    }
    full = write(line) === true;
  };
  const console = freeze({ log: log, info: log, warn: log, error: log, debug: log, trace: log, dir: log });
  defineProperty(globalThis, "console", { value: console, writable: true, enumerable: false, configurable: true });

  const serialize = function (value) {
    const type = typeof value;
    if (type === "undefined" || type === "function" || type === "symbol") return undefined;
    const json = stringify(value, replacer);
    return json === undefined ? undefined : cap(json, resultMax);
  };
  const describe = function (thrown) {
    const text = thrown instanceof ErrorCtor ? errorText(thrown) : "uncaught " + format(thrown);
    return cap(text, 4096);
  };
  return { serialize: serialize, describe: describe };
})`
