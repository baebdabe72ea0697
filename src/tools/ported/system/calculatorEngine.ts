/**
 * The calculator's arithmetic: a tokenizer and a Pratt parser that evaluates as it parses.
 * No `eval`, no `Function`, and names are looked up in `Map`s of its own (never as properties
 * of an object, so `constructor` or `__proto__` are just unknown names).
 *
 * Grammar, loosest first: `+ -`, then `* / %`, then unary `- +`, then `^` (or `**`, right
 * associative, so `-2^2` is -4 and `2^3^2` is 512), then numbers (`12`, `1.5`, `.5`, `2e-3`),
 * constants, function calls and parentheses. Input length and nesting are bounded; division by
 * zero, results too large for a double and results that are not real numbers are errors.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"

/** Longest expression accepted. */
export const CALC_MAX_CHARS = 1000
/** Deepest nesting of parentheses, calls, unary signs and powers. */
export const CALC_MAX_DEPTH = 64

/** The expression cannot be evaluated; `position` (0-based) is where, when known. */
export class CalcError extends Data.TaggedError("CalcError")<{
  readonly message: string
  readonly position?: number | undefined
}> {}

type Token =
  | { readonly kind: "number"; readonly value: number; readonly at: number }
  | { readonly kind: "name"; readonly name: string; readonly at: number }
  | { readonly kind: "op"; readonly op: string; readonly at: number }
  | { readonly kind: "end"; readonly at: number }

const CONSTANTS: ReadonlyMap<string, number> = new Map([["pi", Math.PI], ["e", Math.E], ["tau", 2 * Math.PI]])

/** A function: its arity (`[min, max]`) and its body, which may refuse its arguments. */
interface Fn {
  readonly arity: readonly [number, number]
  readonly apply: (args: ReadonlyArray<number>) => number | string
}

const unary = (f: (x: number) => number, domain?: (x: number) => string | undefined): Fn => ({
  arity: [1, 1],
  apply: ([x = 0]) => domain?.(x) ?? f(x)
})

const positive = (name: string) => (x: number) => (x <= 0 ? `${name} is defined for positive numbers only` : undefined)
const unit = (name: string) => (x: number) => (x < -1 || x > 1 ? `${name} is defined for -1 to 1 only` : undefined)

const FUNCTIONS: ReadonlyMap<string, Fn> = new Map<string, Fn>([
  ["sqrt", unary(Math.sqrt, (x) => (x < 0 ? "sqrt of a negative number is not a real number" : undefined))],
  ["cbrt", unary(Math.cbrt)],
  ["abs", unary(Math.abs)],
  ["floor", unary(Math.floor)],
  ["ceil", unary(Math.ceil)],
  ["trunc", unary(Math.trunc)],
  ["sign", unary(Math.sign)],
  ["exp", unary(Math.exp)],
  ["ln", unary(Math.log, positive("ln"))],
  ["log2", unary(Math.log2, positive("log2"))],
  ["log10", unary(Math.log10, positive("log10"))],
  ["sin", unary(Math.sin)],
  ["cos", unary(Math.cos)],
  ["tan", unary(Math.tan)],
  ["asin", unary(Math.asin, unit("asin"))],
  ["acos", unary(Math.acos, unit("acos"))],
  ["atan", unary(Math.atan)],
  ["atan2", { arity: [2, 2], apply: ([y = 0, x = 0]) => Math.atan2(y, x) }],
  ["pow", { arity: [2, 2], apply: ([x = 0, y = 0]) => power(x, y) }],
  ["hypot", { arity: [1, 100], apply: (xs) => Math.hypot(...xs) }],
  ["min", { arity: [1, 100], apply: (xs) => Math.min(...xs) }],
  ["max", { arity: [1, 100], apply: (xs) => Math.max(...xs) }],
  [
    "log",
    {
      arity: [1, 2],
      apply: ([x = 0, base]) => {
        if (x <= 0) return "log is defined for positive numbers only"
        if (base === undefined) return Math.log10(x)
        if (base <= 0 || base === 1) return "the base of log must be positive and not 1"
        return Math.log(x) / Math.log(base)
      }
    }
  ],
  [
    "round",
    {
      arity: [1, 2],
      apply: ([x = 0, digits = 0]) => {
        if (!Number.isInteger(digits) || digits < 0 || digits > 15) return "round's digits must be a whole number from 0 to 15"
        const f = 10 ** digits
        return Math.round((x + Number.EPSILON * Math.sign(x)) * f) / f
      }
    }
  ]
])

/** `x ^ y`, or why it has no real value. */
const power = (x: number, y: number): number | string => {
  if (x === 0 && y < 0) return "division by zero (0 raised to a negative power)"
  const r = x ** y
  return Number.isNaN(r) ? `${x} ^ ${y} is not a real number` : r
}

const tokenize = (input: string): Result.Result<Array<Token>, CalcError> => {
  const tokens: Array<Token> = []
  let i = 0
  while (i < input.length) {
    const c = input.charAt(i)
    if (/\s/.test(c)) {
      i++
      continue
    }
    const number = /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/.exec(input.slice(i, i + 400))
    if (number !== null) {
      tokens.push({ kind: "number", value: Number(number[0]), at: i })
      i += number[0].length
      continue
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(input.slice(i, i + 100))
    if (name !== null) {
      tokens.push({ kind: "name", name: name[0].toLowerCase(), at: i })
      i += name[0].length
      continue
    }
    if (input.startsWith("**", i)) {
      tokens.push({ kind: "op", op: "^", at: i })
      i += 2
      continue
    }
    if ("+-*/%^(),".includes(c)) {
      tokens.push({ kind: "op", op: c, at: i })
      i++
      continue
    }
    const shown = String.fromCodePoint(input.codePointAt(i) ?? 0)
    return Result.fail(new CalcError({ message: `unexpected character ${JSON.stringify(shown)} at position ${i + 1}`, position: i }))
  }
  tokens.push({ kind: "end", at: input.length })
  return Result.succeed(tokens)
}

/** Binding powers of the infix operators: `[left, right]`. */
const INFIX: ReadonlyMap<string, readonly [number, number]> = new Map([
  ["+", [10, 11]],
  ["-", [10, 11]],
  ["*", [20, 21]],
  ["/", [20, 21]],
  ["%", [20, 21]],
  ["^", [31, 30]]
] as const)
/** Unary signs bind looser than `^`: `-2^2` is `-(2^2)`. */
const PREFIX_POWER = 25

const describe = (t: Token): string =>
  t.kind === "end" ? "the end" : t.kind === "number" ? `the number ${t.value}` : t.kind === "name" ? `"${t.name}"` : `"${t.op}"`

/** Applies a binary operator, or says why it has no value. */
const binary = (op: string, a: number, b: number): number | string => {
  switch (op) {
    case "+":
      return a + b
    case "-":
      return a - b
    case "*":
      return a * b
    case "/":
      return b === 0 ? "division by zero" : a / b
    case "%":
      return b === 0 ? "modulo by zero" : a % b
    default:
      return power(a, b)
  }
}

/** Evaluates `input`. */
export const evaluate = (input: string): Result.Result<number, CalcError> => {
  if (input.length > CALC_MAX_CHARS) {
    return Result.fail(new CalcError({ message: `the expression is longer than ${CALC_MAX_CHARS} characters` }))
  }
  return Result.flatMap(tokenize(input), (tokens) => {
    let pos = 0
    const peek = (): Token => tokens[pos] ?? { kind: "end", at: input.length }
    const error = (message: string, at = peek().at) => new CalcError({ message: `${message} (at position ${at + 1})`, position: at })
    const checked = (r: number | string, at: number): number => {
      if (typeof r === "string") throw error(r, at)
      // a guard: every operator and function refuses its domain's gaps first, so no finite arguments give NaN
      if (Number.isNaN(r)) throw error("the result is not a real number", at)
      if (!Number.isFinite(r)) throw error("overflow: the result is beyond ±1.8e308", at)
      return r
    }
    const expect = (op: string) => {
      const t = peek()
      if (t.kind !== "op" || t.op !== op) throw error(`expected "${op}" but found ${describe(t)}`)
      pos++
    }

    const call = (name: string, fn: Fn, at: number, depth: number): number => {
      expect("(")
      const args: Array<number> = []
      const first = peek()
      if (!(first.kind === "op" && first.op === ")")) {
        for (;;) {
          args.push(expression(0, depth + 1))
          const t = peek()
          if (t.kind === "op" && t.op === ",") pos++
          else break
        }
      }
      expect(")")
      const [min, max] = fn.arity
      if (args.length < min || args.length > max) {
        const wanted = min === max ? `${min}` : max >= 100 ? `at least ${min}` : `${min} or ${max}`
        throw error(`${name} takes ${wanted} argument${wanted === "1" ? "" : "s"}, not ${args.length}`, at)
      }
      return checked(fn.apply(args), at)
    }

    const prefix = (depth: number): number => {
      const t = peek()
      pos++
      if (t.kind === "number") return checked(t.value, t.at)
      if (t.kind === "name") {
        const fn = FUNCTIONS.get(t.name)
        if (fn !== undefined) return call(t.name, fn, t.at, depth)
        const constant = CONSTANTS.get(t.name)
        if (constant !== undefined) return constant
        throw error(
          `unknown name "${t.name}" (constants: pi, e, tau; functions: ${[...FUNCTIONS.keys()].join(", ")})`,
          t.at
        )
      }
      if (t.kind === "op" && t.op === "(") {
        const value = expression(0, depth + 1)
        expect(")")
        return value
      }
      if (t.kind === "op" && (t.op === "-" || t.op === "+")) {
        const value = expression(PREFIX_POWER, depth + 1)
        return t.op === "-" ? -value : value
      }
      throw error(`expected a number, a name or "(" but found ${describe(t)}`, t.at)
    }

    const expression = (minPower: number, depth: number): number => {
      if (depth > CALC_MAX_DEPTH) throw error(`the expression is nested more than ${CALC_MAX_DEPTH} deep`)
      let left = prefix(depth)
      for (;;) {
        const t = peek()
        if (t.kind === "end") return left
        if (t.kind !== "op" || t.op === "(") {
          throw error(`expected an operator but found ${describe(t)} (write multiplication with "*")`, t.at)
        }
        const powers = INFIX.get(t.op)
        if (powers === undefined || powers[0] < minPower) return left
        pos++
        const right = expression(powers[1], depth + 1)
        left = checked(binary(t.op, left, right), t.at)
      }
    }

    return Result.try({
      try: () => {
        const value = expression(0, 0)
        const rest = peek()
        if (rest.kind !== "end") throw error(`unexpected ${describe(rest)}`, rest.at)
        return value
      },
      catch: (e) => (e instanceof CalcError ? e : new CalcError({ message: String(e) }))
    })
  })
}

/** A result as shown: 15 significant digits (so 0.1 + 0.2 is 0.3), `-0` as 0 (as `String` shows it). */
export const formatNumber = (value: number): string => {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) {
    return Number.isSafeInteger(value) ? String(value) : `${value} (approximately: beyond 2^53 not every integer is exact)`
  }
  return String(Number(value.toPrecision(15)))
}
