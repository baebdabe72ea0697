/**
 * Bounds on what a call's arguments may be, checked before any validation or formatting
 * touches them: a model (or an attacker behind one) can send arguments nested thousands deep
 * or millions of items long, and both the schema decoder and its error formatter recurse.
 * Also the short, one-line form of every argument problem, worded as the library worded it on
 * Effect 3 (`is missing`, `Expected string, actual 5`, one line per member of a union that did
 * not match), from the issues of an Effect 4 decode made with `argumentParseOptions`.
 *
 * @since 0.1.0
 */
import * as Exit from "effect/Exit"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import type * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaParser from "effect/SchemaParser"
import type { ArgumentIssue } from "./errors.js"
import { encodedNode, filterExpected, filtersOf, format, formatUnknown, typeOf, view } from "./schemaView.js"

/**
 * Deepest nesting of objects and arrays accepted in a call's arguments.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_ARGUMENT_DEPTH = 64
/**
 * Most values (objects, arrays, strings, numbers, ...) accepted in a call's arguments.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_ARGUMENT_NODES = 100_000
/**
 * Most characters of all strings (values and keys) together in a call's arguments.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_ARGUMENT_CHARS = 32 * 1024 * 1024

/** Most issues listed for one call; the rest are counted. */
const MAX_ISSUES = 20
/** Longest message of one issue. */
const MAX_ISSUE_CHARS = 200

/** What a check has counted so far. */
interface Tally {
  nodes: number
  chars: number
}

const tooDeep: ArgumentIssue = { path: [], message: `nested deeper than ${MAX_ARGUMENT_DEPTH} levels` }
const tooMany: ArgumentIssue = { path: [], message: `more than ${MAX_ARGUMENT_NODES} values` }
const tooLong: ArgumentIssue = { path: [], message: `more than ${MAX_ARGUMENT_CHARS} characters of text` }

/** Counts one value (and what it holds). Recursion stops at `MAX_ARGUMENT_DEPTH`, so it stays shallow. */
const visit = (value: unknown, depth: number, tally: Tally): ArgumentIssue | undefined => {
  if (++tally.nodes > MAX_ARGUMENT_NODES) return tooMany
  if (typeof value === "string") {
    tally.chars += value.length
    return tally.chars > MAX_ARGUMENT_CHARS ? tooLong : undefined
  }
  if (typeof value !== "object" || value === null) return undefined
  if (depth > MAX_ARGUMENT_DEPTH) return tooDeep
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = visit(value[i], depth + 1, tally)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    tally.chars += key.length
    const problem = visit(Reflect.get(value, key), depth + 1, tally)
    if (problem !== undefined) return problem
  }
  return undefined
}

/**
 * The first bound the arguments break, as an issue, or `undefined`. Linear in the size of the
 * input, stopped at the first bound it crosses; its recursion is bounded by the depth limit.
 *
 * @internal
 */
export const argumentsProblem = (input: unknown): ArgumentIssue | undefined =>
  typeof input !== "object" || input === null ? undefined : visit(input, 1, { nodes: 0, chars: 0 })

/** Flattens `text` to one line of at most `max` characters. */
const oneLine = (text: string, max: number): string => {
  const head = text.slice(0, max * 2)
  const flat = head.replace(/\s+/g, " ").trim()
  return flat.length > max || text.length > head.length ? `${flat.slice(0, max - 1)}…` : flat
}

/** An excess-property message of the formatter, said plainly. */
const plain = (message: string): string =>
  message.startsWith("is unexpected") ? message.replace(/^is unexpected, expected: /, "unknown property; expected one of: ") : message

/**
 * An annotation whose value, a function of the value that was refused, is the whole message of
 * a value of the wrong type (Effect 4's own `message` annotation is a fixed string), e.g.
 * `WorkspacePath`'s `Expected a path (a string), actual 5`.
 *
 * @internal
 */
export const IssueMessageId = "effect-tool-system/issueMessage"

/**
 * How a call's arguments are decoded: every problem, unknown properties refused, and the
 * refused values kept in the issues (`issuesOf` quotes them, as `actual ...`).
 *
 * @internal
 */
export const argumentParseOptions: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "error", reportInput: true }

/** One problem as Effect 3's array formatter wrote it, before it is cut to one line. */
interface Line {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const actual = (issue: SchemaIssue.Issue): string => ("input" in issue ? `, actual ${formatUnknown(issue.input)}` : "")

/** A value of the wrong type: the schema's own message, else what its base type expected. */
const typeMessage = (ast: SchemaAST.AST, issue: SchemaIssue.Issue): string => {
  const custom = ast.annotations?.[IssueMessageId]
  if (typeof custom === "function") {
    const text: unknown = custom("input" in issue ? issue.input : undefined)
    if (typeof text === "string") return text
  }
  const message = ast.annotations?.message
  if (typeof message === "string") return message
  return `Expected ${format(typeOf(ast))}${actual(issue)}`
}

/** The keys a struct (or the indexes a tuple) takes, as Effect 3 listed them after an unknown one. */
const expectedKeys = (ast: SchemaAST.AST): string => {
  if (ast._tag === "Arrays") return ast.elements.length > 0 ? ast.elements.map((_, i) => i).join(" | ") : "never"
  if (ast._tag !== "Objects") return "never"
  const all = [
    ...ast.indexSignatures.map((is) => format(view(is.parameter))),
    ...ast.propertySignatures.map((ps) => formatUnknown(ps.name))
  ]
  return all.length === 0 ? "never" : all.join(" | ")
}

/** A failed check: the message it gave, else what it expected (Effect 3's description of it). */
const filterLines = (issue: SchemaIssue.Filter, path: ReadonlyArray<PropertyKey>): Array<Line> => {
  const inner = issue.issue
  if (inner._tag !== "InvalidValue") return lines(inner, path)
  const given = inner.annotations?.message ?? issue.filter.annotations?.message
  if (typeof given === "string") return [{ path, message: given }]
  return [{ path, message: `Expected ${filterExpected(issue.filter, "input" in issue ? issue.input : undefined)}${actual(issue)}` }]
}

/** The checks on an array's length, which Effect 3 ran even when items failed (its "stable" filters). */
const lengthChecks = new Set(["effect/schema/isMinLength", "effect/schema/isMaxLength", "effect/schema/isBetweenLength"])

/** The length checks an array with failing items also fails, as Effect 3 listed them after the items. */
const lengthLines = (issue: SchemaIssue.Composite, path: ReadonlyArray<PropertyKey>): Array<Line> => {
  const input: unknown = "input" in issue ? issue.input : undefined
  if (issue.ast._tag !== "Arrays" || !Array.isArray(input)) return []
  return filtersOf(issue.ast.checks).flatMap((filter) => {
    const id = filter.annotations?.representation?.id
    if (id === undefined || !lengthChecks.has(id) || filter.run(input, issue.ast, argumentParseOptions) === undefined) return []
    const given = filter.annotations?.message
    return [{ path, message: typeof given === "string" ? given : `Expected ${filterExpected(filter, input)}, actual ${formatUnknown(input)}` }]
  })
}

/** The literal-valued keys of a union member (its discriminators), as Effect 3 found them. */
const literalsOf = (member: SchemaAST.AST): ReadonlyArray<readonly [PropertyKey, SchemaAST.LiteralValue | null]> => {
  const node = encodedNode(member)
  const literal = (ast: SchemaAST.AST): SchemaAST.LiteralValue | null | undefined => {
    const encoded = encodedNode(ast)
    return encoded._tag === "Literal" ? encoded.literal : encoded._tag === "Null" ? null : undefined
  }
  switch (node._tag) {
    case "Suspend":
      return literalsOf(node.thunk())
    case "Objects":
      return node.propertySignatures.flatMap((ps) => {
        const value = literal(ps.type)
        return value === undefined || isOptionalKey(ps.type) ? [] : [[ps.name, value] as const]
      })
    case "Arrays":
      return node.elements.flatMap((e, i) => {
        const value = literal(e)
        return value === undefined || isOptionalKey(e) ? [] : [[i, value] as const]
      })
    default:
      return []
  }
}

const isOptionalKey = (ast: SchemaAST.AST): boolean => encodedNode(ast).context?.isOptional ?? false

interface SearchKey {
  readonly buckets: Record<string, Array<SchemaAST.AST>>
  readonly literals: Array<SchemaAST.LiteralValue | null>
  readonly candidates: Array<SchemaAST.AST>
}

/** Effect 3's search tree of a union: members by the values of their discriminators, the others aside. */
const searchTree = (members: ReadonlyArray<SchemaAST.AST>) => {
  const keys: Record<PropertyKey, SearchKey> = {}
  const otherwise: Array<SchemaAST.AST> = []
  const candidates: Array<SchemaAST.AST> = []
  for (const member of members) {
    const tags = literalsOf(member)
    if (tags.length === 0) {
      otherwise.push(member)
      continue
    }
    candidates.push(member)
    for (let j = 0; j < tags.length; j++) {
      const tag = tags[j]
      if (tag === undefined) continue
      const [key, value] = tag
      const hash = String(value)
      const entry = keys[key] ?? { buckets: {}, literals: [], candidates: [] }
      keys[key] = entry
      const bucket = entry.buckets[hash]
      if (bucket !== undefined) {
        if (j < tags.length - 1) continue
        bucket.push(member)
      } else {
        entry.buckets[hash] = [member]
      }
      entry.literals.push(value)
      entry.candidates.push(member)
      if (bucket === undefined) break
    }
  }
  return { keys, otherwise, candidates }
}

/** Why `input` is none of a union's members, member by member, as Effect 3 listed it. */
const unionLines = (issue: SchemaIssue.AnyOf, path: ReadonlyArray<PropertyKey>): Array<Line> => {
  if (!("input" in issue)) {
    return issue.issues.length > 0 ? issue.issues.flatMap((i) => lines(i, path)) : [{ path, message: `Expected ${format(view(issue.ast))}` }]
  }
  const input: unknown = issue.input
  const members = issue.ast.types
  const tree = searchTree(members)
  const out: Array<Line> = []
  const candidates: Array<SchemaAST.AST> = []
  const ownKeys = Reflect.ownKeys(tree.keys)
  if (ownKeys.length > 0) {
    if (Predicate.isObject(input)) {
      for (const name of ownKeys) {
        const entry = tree.keys[name]
        if (entry === undefined) continue
        if (Object.hasOwn(input, name)) {
          const value: unknown = Reflect.get(input, name)
          const bucket = entry.buckets[String(value)]
          if (bucket !== undefined) candidates.push(...bucket)
          else out.push({ path: [...path, name], message: `Expected ${entry.literals.map(formatUnknown).join(" | ")}, actual ${formatUnknown(value)}` })
        } else {
          out.push({ path: [...path, name], message: "is missing" })
        }
      }
    } else {
      const expected = tree.candidates.length === members.length
        ? format(view(issue.ast))
        : tree.candidates.map((c) => format(view(c))).join(" | ")
      out.push({ path, message: `Expected ${expected}, actual ${formatUnknown(input)}` })
    }
  }
  candidates.push(...tree.otherwise)
  for (const candidate of candidates) {
    const exit = SchemaParser.decodeUnknownExit(Schema.make<Schema.Codec<unknown, unknown>>(candidate), argumentParseOptions)(input)
    if (Exit.isSuccess(exit)) return []
    const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
    if (failure !== undefined && failure._tag === "Fail") out.push(...lines(failure.error, path))
    else {
      // a member whose own decoding throws on the value: the model is told which, and why,
      // rather than being left with no reason when it was the only candidate
      const died = exit.cause.reasons.find((reason) => reason._tag === "Die")
      if (died !== undefined && died._tag === "Die") {
        const why = died.defect instanceof Error ? died.defect.message : formatUnknown(died.defect)
        out.push({ path, message: `Expected ${format(view(candidate))}, but decoding it failed: ${why}` })
      }
    }
  }
  return out
}

/** The problems of an issue tree as Effect 3's array formatter listed them: path and message each. */
const lines = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): Array<Line> => {
  switch (issue._tag) {
    case "Pointer":
      return lines(issue.issue, [...path, ...issue.path])
    case "Composite": {
      // a string its template literal refuses: Effect 3 named the template, not "Invalid data"
      if (issue.ast._tag === "TemplateLiteral") return [{ path, message: typeMessage(issue.ast, issue) }]
      // the failed checks of one value: Effect 3 stopped at the first
      const [first] = issue.issues
      if (issue.issues.every((i) => i._tag === "Filter")) return lines(first, path)
      return [...issue.issues.flatMap((i) => lines(i, path)), ...lengthLines(issue, path)]
    }
    case "AnyOf":
      return unionLines(issue, path)
    case "InvalidType":
      return [{ path, message: typeMessage(issue.ast, issue) }]
    case "Filter":
      return filterLines(issue, path)
    case "Encoding":
      return lines(issue.issue, path)
    case "MissingKey": {
      const message = issue.annotations?.messageMissingKey
      return [{ path, message: typeof message === "string" ? message : "is missing" }]
    }
    case "UnexpectedKey":
      return [{ path, message: `is unexpected, expected: ${expectedKeys(issue.ast)}` }]
    case "InvalidValue": {
      const message = issue.annotations?.message
      return [{ path, message: typeof message === "string" ? message : `Invalid data${actual(issue).replace(/^, actual/, "")}` }]
    }
    case "Forbidden": {
      const message = issue.annotations?.message
      return [{ path, message: typeof message === "string" ? message : "is forbidden" }]
    }
    case "OneOf":
      return [{ path, message: `Expected exactly one member to match${actual(issue).replace(/^, actual/, " the input")}` }]
  }
}

/**
 * The issues of a failed decode (made with `argumentParseOptions`): one short line each, with
 * its path; at most 20, then a count.
 *
 * @internal
 */
export const issuesOf = (error: Schema.SchemaError | SchemaIssue.Issue): ReadonlyArray<ArgumentIssue> => {
  const formatted = lines(Schema.isSchemaError(error) ? error.issue : error, [])
  // an optional field is `X | undefined`: when X has problems of its own, "expected undefined"
  // for the field says nothing more
  const all = formatted.filter((issue) =>
    !(issue.message.startsWith("Expected undefined") &&
      formatted.some((other) => other.path.length > issue.path.length && issue.path.every((k, i) => other.path[i] === k)))
  )
  const shown: Array<ArgumentIssue> = all.slice(0, MAX_ISSUES).map((i) => ({
    path: i.path,
    message: oneLine(plain(i.message), MAX_ISSUE_CHARS)
  }))
  if (all.length > MAX_ISSUES) shown.push({ path: [], message: `and ${all.length - MAX_ISSUES} more problems` })
  return shown
}
