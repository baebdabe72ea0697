/**
 * Effect 3's text of a schema ("Expected ..."), written from its Effect 3 view
 * (`schemaView.ts`): the names, the template literals' patterns, the values shown.
 *
 * @since 1.0.0
 */
import * as Predicate from "effect/Predicate"
import * as SchemaAST from "effect/SchemaAST"
import { checkAnnotations } from "./schemaCheckText.js"
import { BrandsAnnotationId, type View, type ViewAnnotations } from "./schemaViewModel.js"

// -------------------------------------------------------------------------------------------------
// Effect 3's text of a schema
// -------------------------------------------------------------------------------------------------

const stringAnnotation = (annotations: ViewAnnotations, key: string): string | undefined => {
  const value = annotations[key]
  return typeof value === "string" ? value : undefined
}

/** ` & Brand<"x">` for each brand a schema shows. */
const brandsOf = (v: View): string => {
  const brands = v.annotations[BrandsAnnotationId]
  return Array.isArray(brands) ? brands.map((b: unknown) => ` & Brand<${formatUnknown(b)}>`).join("") : ""
}

/** `title`, else `description`, with the brands: what Effect 3 expected of a schema with them. */
const expectedOf = (v: View): string | undefined => {
  const text = stringAnnotation(v.annotations, "title") ?? stringAnnotation(v.annotations, "description") ??
    stringAnnotation(v.annotations, "autoTitle")
  return text === undefined ? undefined : text + brandsOf(v)
}

/** `identifier`, else `title`, `description`: what Effect 3 called a schema that has them. */
const named = (v: View): string | undefined => stringAnnotation(v.annotations, "identifier") ?? expectedOf(v)

/** Values `formatUnknown` writes at most (as many as a call's arguments may hold). */
const FORMAT_MAX_VALUES = 100_000

/**
 * A value as Effect 3 showed it in a message: a string quoted, an object as compact JSON-like
 * text, a `Date` as ISO text, a bigint as `1n`.
 *
 * @internal
 */
export const formatUnknown = (input: unknown): string => {
  // the objects being written, outermost first: one met again inside itself is a cycle; one met
  // again beside itself (`[o, o]`) is written again
  const open = new Set<object>()
  const inside = (v: object, write: () => string): string => {
    if (open.has(v)) return "[Circular]"
    open.add(v)
    try {
      return write()
    } finally {
      open.delete(v)
    }
  }
  // a value shared many times over (`a = [b, b]`, `b = [c, c]`, ...) is written once per place it
  // is met, so the values written are counted: what lies past the bound is `…`
  let left = FORMAT_MAX_VALUES
  const go = (v: unknown): string => {
    if (--left < 0) return "…"
    if (Array.isArray(v)) return inside(v, () => `[${v.map(go).join(",")}]`)
    if (v instanceof Date) {
      try {
        return v.toISOString()
      } catch {
        return "Invalid Date"
      }
    }
    if (
      Predicate.hasProperty(v, "toString") && typeof v.toString === "function" &&
      v.toString !== Object.prototype.toString && v.toString !== Array.prototype.toString
    ) {
      let s: string
      try {
        const text: unknown = v.toString()
        s = typeof text === "string" ? text : String(text)
      } catch {
        s = "[toString threw]"
      }
      return v instanceof Error && v.cause !== undefined ? `${s} (cause: ${go(v.cause)})` : s
    }
    if (typeof v === "string") return JSON.stringify(v)
    // numbers, booleans, symbols and undefined are written by `String(v)`, at the end
    if (v === null) return "null"
    if (typeof v === "bigint") return `${String(v)}n`
    if (v instanceof Set || v instanceof Map) return inside(v, () => `${v.constructor.name}(${go(Array.from(v))})`)
    if (typeof v === "object") return inside(v, () => plainObject(v))
    return String(v)
  }
  const plainObject = (v: object): string => {
    let keys: Array<PropertyKey>
    try {
      keys = Reflect.ownKeys(v)
    } catch {
      keys = ["[ownKeys threw]"]
    }
    const body = `{${keys.map((k) => `${formatKey(k)}:${go(Reflect.get(v, k))}`).join(",")}}`
    const ctor: unknown = Reflect.get(v, "constructor")
    return typeof ctor === "function" && ctor !== Object && ctor.name !== "" ? `${ctor.name}(${body})` : body
  }
  return go(input)
}

const formatKey = (k: PropertyKey): string => (typeof k === "string" ? JSON.stringify(k) : String(k))

const keywords: Readonly<Record<string, string>> = {
  StringKeyword: "string",
  NumberKeyword: "number",
  BooleanKeyword: "boolean",
  UndefinedKeyword: "undefined",
  VoidKeyword: "void",
  NeverKeyword: "never",
  UnknownKeyword: "unknown",
  AnyKeyword: "any",
  BigIntKeyword: "bigint",
  SymbolKeyword: "symbol",
  ObjectKeyword: "object"
}

/**
 * A schema as Effect 3 wrote it in a message: `string`, `"a" | "b"`, `{ readonly n: number }`.
 *
 * @internal
 */
export const format = (v: View): string => {
  switch (v._tag) {
    case "Refinement": {
      const identifier = stringAnnotation(v.annotations, "identifier")
      if (identifier !== undefined) return identifier
      const expected = expectedOf(v)
      if (expected === undefined) return `{ ${format(v.from)} | filter }`
      // a check over another names both: `Int & greaterThanOrEqualTo(1)`
      return v.from._tag === "Refinement" ? `${format(v.from)} & ${expected}` : expected
    }
    case "Transformation":
      return named(v) ?? `(${format(v.from)} <-> ${format(v.to)})`
    case "TypeLiteral": {
      const own = named(v)
      if (own !== undefined) return own
      const pss = v.propertySignatures.map((ps) =>
        `readonly ${String(ps.name)}${ps.isOptional ? "?" : ""}: ${format(ps.type)}`
      )
      const iss = v.indexSignatures.map((is) => `readonly [x: ${format(is.parameter)}]: ${format(is.type)}`)
      const all = [...pss, ...iss]
      return all.length === 0 ? "{}" : `{ ${all.join("; ")} }`
    }
    case "TupleType": {
      const own = named(v)
      if (own !== undefined) return own
      const elements = v.elements.map((e) => `${format(e.type)}${e.isOptional ? "?" : ""}`).join(", ")
      const [head, ...tail] = v.rest
      if (head === undefined) return `readonly [${elements}]`
      const formattedHead = format(head.type)
      const wrappedHead = formattedHead.includes(" | ") ? `(${formattedHead})` : formattedHead
      if (tail.length > 0) {
        const formattedTail = tail.map((t) => format(t.type)).join(", ")
        return v.elements.length > 0
          ? `readonly [${elements}, ...${wrappedHead}[], ${formattedTail}]`
          : `readonly [...${wrappedHead}[], ${formattedTail}]`
      }
      return v.elements.length > 0 ? `readonly [${elements}, ...${wrappedHead}[]]` : `ReadonlyArray<${formattedHead}>`
    }
    case "Union":
      return named(v) ?? v.types.map(format).join(" | ")
    case "Suspend":
      return named(v) ?? "<suspended schema>"
    case "Literal":
      return named(v) ?? formatUnknown(v.literal)
    case "Enums":
      return named(v) ?? `<enum ${v.enums.length} value(s): ${v.enums.map(([, value]) => JSON.stringify(value)).join(" | ")}>`
    case "TemplateLiteral":
      return named(v) ?? v.text
    case "UniqueSymbol":
      return named(v) ?? (v.ast._tag === "UniqueSymbol" ? String(v.ast.symbol) : "symbol")
    case "Declaration": {
      // Effect 4's declarations say what they expect (`a valid Date`), as Effect 3's refinements of them did
      const expected = v.ast.annotations?.expected
      return named(v) ?? (typeof expected === "string" ? expected : "<declaration schema>")
    }
    default:
      // Effect 3's keywords had a title of their own ("string"), which a description did not replace
      return stringAnnotation(v.annotations, "identifier") ??
        (stringAnnotation(v.annotations, "title") ?? keywords[v._tag] ?? v._tag) + brandsOf(v)
  }
}

/**
 * What a failed check expected, as Effect 3 said it, for the value it refused (which tells a
 * string's length from an array's).
 *
 * @internal
 */
export const filterExpected = (check: SchemaAST.Filter<unknown>, input: unknown): string => {
  const annotations = checkAnnotations(check, Array.isArray(input))
  const kind = input === null ? "null" : Array.isArray(input) ? "ReadonlyArray<unknown>" : typeof input
  return stringAnnotation(annotations, "description") ?? stringAnnotation(annotations, "title") ??
    stringAnnotation(annotations, "identifier") ?? `{ ${kind} | filter }`
}

/**
 * The schema under a node's checks and encoding (what a value's type is checked against first).
 *
 * @internal
 */
export const baseOf = (v: View): View =>
  v._tag === "Refinement" ? baseOf(v.from) : v._tag === "Transformation" ? baseOf(v.from) : v
