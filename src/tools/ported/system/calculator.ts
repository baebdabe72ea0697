/**
 * `calculator`: arithmetic evaluated by a parser of its own (`calculatorEngine.ts`), never by
 * the host's `eval`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { make } from "../../defineBuiltin.js"
import { CALC_MAX_CHARS, evaluate, formatNumber } from "./calculatorEngine.js"

const TOOL = "calculator"

export const calculator = make(TOOL, {
  description: "Evaluate an arithmetic expression: + - * / % (remainder), ^ or ** (power), parentheses, unary minus, " +
    "numbers like 12, 1.5, .5, 2e-3; constants pi, e, tau; functions sqrt, cbrt, abs, round(x[, digits]), floor, ceil, " +
    "trunc, sign, min, max, hypot, pow, exp, ln (natural log), log (base 10, or log(x, base)), log2, log10, sin, cos, " +
    "tan, asin, acos, atan, atan2 (angles in radians). Results are shown to 15 significant digits. " +
    "Division by zero and overflow are errors.",
  parameters: Schema.Struct({
    expression: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(CALC_MAX_CHARS)).annotate({
      description: "The expression, e.g. \"(2 + 3) * sqrt(16) / 4\""
    })
  }),
  readOnly: true,
  tags: ["system", "ported"],
  timeout: "5 seconds",
  handler: ({ expression }) =>
    Effect.suspend(() => {
      const result = evaluate(expression)
      if (Result.isFailure(result)) return Effect.fail(new ToolError({ tool: TOOL, message: result.failure.message }))
      return Effect.succeed(`${expression.replace(/\s+/g, " ").trim()} = ${formatNumber(result.success)}`)
    })
})
