/**
 * Effect 3's `JSONSchema.make`, on a schema's Effect 3 view (`schemaView.ts`): the raw JSON
 * Schema with its `$defs`, before `parametersSchema.ts` inlines and annotates it.
 *
 * @since 1.0.0
 */
import {
  type View,
  type ViewAnnotations,
  type ViewTransformation,
  type ViewTupleType,
  type ViewTypeLiteral,
  view
} from "./schemaView.js"
import {
  addAnnotations,
  addViewAnnotations,
  compactUnion,
  constAny,
  constEmptyStruct,
  constNever,
  constObject,
  constUnknown,
  constVoid,
  formatPath,
  identifierOf,
  isNever,
  isOverride,
  isRecord,
  type Json,
  jsonAnnotations,
  jsonSchemaOf,
  mergeRefinements,
  missingAnnotation,
  pruneUndefined,
  REF_PREFIX,
  requiresJsonSchema,
  transformationFrom
} from "./jsonSchemaParts.js"

export interface Go {
  readonly defs: Record<string, Json>
  readonly errors: boolean
}

export const go = (v: View, state: Go, identifier: boolean, path: ReadonlyArray<PropertyKey>, annotation = true): Json => {
  if (identifier) {
    const id = identifierOf(v)
    if (id !== undefined) {
      const out: Json = { $ref: REF_PREFIX + id.replace(/~/g, "~0").replace(/\//g, "~1") }
      if (!Object.hasOwn(state.defs, id)) {
        state.defs[id] = out
        state.defs[id] = go(v, state, false, path)
      }
      return out
    }
  }
  if (annotation) {
    const hook = jsonSchemaOf(v)
    if (hook !== undefined) {
      if (isOverride(v, hook)) return v._tag === "Declaration" ? addViewAnnotations(hook, v) : hook
      if (v._tag === "Refinement") {
        const t = transformationFrom(v)
        return t === undefined ? mergeRefinements(go(v.from, state, identifier, path), hook, v) : go(t, state, identifier, path)
      }
      return { ...go(v, state, identifier, path, false), ...hook }
    }
  }
  switch (v._tag) {
    case "Declaration":
    case "UndefinedKeyword":
    case "BigIntKeyword":
    case "UniqueSymbol":
    case "SymbolKeyword":
      if (!state.errors) return addViewAnnotations(constAny, v)
      throw missingAnnotation(requiresJsonSchema, path, v)
    case "Suspend":
      if (identifier) {
        if (!state.errors) return addViewAnnotations(constAny, v)
        throw missingAnnotation('Generating a JSON Schema for this schema requires an "identifier" annotation', path, v)
      }
      return go(v.f(), state, false, path)
    case "NeverKeyword":
      return addViewAnnotations(constNever, v)
    case "VoidKeyword":
      return addViewAnnotations(constVoid, v)
    case "UnknownKeyword":
      return addViewAnnotations(constUnknown, v)
    case "AnyKeyword":
      return addViewAnnotations(constAny, v)
    case "ObjectKeyword":
      return addViewAnnotations(constObject, v)
    case "StringKeyword":
      return addViewAnnotations({ type: "string" }, v)
    case "NumberKeyword":
      return addViewAnnotations({ type: "number" }, v)
    case "BooleanKeyword":
      return addViewAnnotations({ type: "boolean" }, v)
    case "Literal": {
      const literal = v.literal
      if (literal === null) return addViewAnnotations({ type: "null" }, v)
      if (typeof literal === "string") return addViewAnnotations({ type: "string", enum: [literal] }, v)
      if (typeof literal === "number") return addViewAnnotations({ type: "number", enum: [literal] }, v)
      if (typeof literal === "boolean") return addViewAnnotations({ type: "boolean", enum: [literal] }, v)
      if (!state.errors) return addViewAnnotations(constAny, v)
      throw missingAnnotation(requiresJsonSchema, path, v)
    }
    case "Enums": {
      const anyOf = v.enums.map(([title, value]) => ({ type: typeof value === "number" ? "number" : "string", title, enum: [value] }))
      return anyOf.length >= 1 ? addViewAnnotations({ $comment: "/schemas/enums", anyOf }, v) : addViewAnnotations(constNever, v)
    }
    case "TupleType":
      return tuple(v, state, path)
    case "TypeLiteral":
      return typeLiteral(v, state, path)
    case "Union": {
      const anyOf = compactUnion(v.types.map((t) => go(t, state, true, path)))
      const [only] = anyOf
      if (only === undefined) return constNever
      return anyOf.length === 1 ? addViewAnnotations(only, v) : addViewAnnotations({ anyOf }, v)
    }
    case "Refinement":
      return go(v.from, state, identifier, path)
    case "TemplateLiteral":
      return addViewAnnotations({ type: "string", title: v.text, description: "a template literal", pattern: v.pattern }, v)
    case "Transformation":
      return transformation(v, state, identifier, path)
  }
}

/** A property's or element's own annotations, for its schema `type`. */
const contextAnnotations = (type: View, annotations: ViewAnnotations): Json | undefined => jsonAnnotations(type, annotations)

const tuple = (v: ViewTupleType, state: Go, path: ReadonlyArray<PropertyKey>): Json => {
  const elements = v.elements.map((e, i) =>
    addAnnotations(go(e.type, state, true, [...path, i]), contextAnnotations(e.type, e.annotations))
  )
  const rest = v.rest.map((r) => addAnnotations(go(r.type, state, true, path), contextAnnotations(r.type, r.annotations)))
  const output: Json = { type: "array" }
  const len = v.elements.length
  if (len > 0) {
    output.minItems = len - v.elements.filter((e) => e.isOptional).length
    output.items = elements
  }
  const [head] = rest
  if (head !== undefined) {
    const isHomogeneous = rest.length === 1 && v.elements.every((e) => e.type === v.rest[0]?.type)
    if (isHomogeneous) output.items = head
    else output.additionalItems = head
    if (rest.length > 1) {
      if (!state.errors) return addViewAnnotations(constAny, v)
      const at = path.length > 0 ? `\nat path: ${formatPath(path)}` : ""
      throw new Error(
        "Generating a JSON Schema for post-rest elements is not currently supported. You're welcome to contribute by submitting a Pull Request" +
          at
      )
    }
  } else if (len > 0) {
    output.additionalItems = false
  } else {
    output.maxItems = 0
  }
  return addViewAnnotations(output, v)
}

const typeLiteral = (v: ViewTypeLiteral, state: Go, path: ReadonlyArray<PropertyKey>): Json => {
  if (v.propertySignatures.length === 0 && v.indexSignatures.length === 0) return addViewAnnotations(constEmptyStruct, v)
  const required: Array<string> = []
  const properties: Json = {}
  const output: Json = { type: "object", required, properties, additionalProperties: false }
  let patternProperties: Json | undefined
  let propertyNames: Json | undefined
  for (const is of v.indexSignatures) {
    const pruned = pruneUndefined(is.type) ?? is.type
    switch (is.parameter._tag) {
      case "StringKeyword": {
        const additional = go(pruned, state, true, path)
        output.additionalProperties = isNever(additional) ? false : additional
        break
      }
      case "TemplateLiteral":
        patternProperties = go(pruned, state, true, path)
        propertyNames = { type: "string", pattern: is.parameter.pattern }
        break
      case "Refinement":
        patternProperties = go(pruned, state, true, path)
        propertyNames = go(is.parameter, state, true, path)
        break
      case "SymbolKeyword":
        output.additionalProperties = go(pruned, state, true, [...path, "[symbol]"])
        propertyNames = go(is.parameter, state, true, [...path, "[symbol]"])
        break
    }
  }
  for (const ps of v.propertySignatures) {
    if (typeof ps.name !== "string") {
      if (!state.errors) return addViewAnnotations(constAny, v)
      const at = path.length > 0 ? `\nat path: ${formatPath(path)}` : ""
      throw new Error(`Unsupported key${at}\ndetails: Cannot encode ${String(ps.name)} key to JSON Schema`)
    }
    const pruned = pruneUndefined(ps.type)
    const type = pruned ?? ps.type
    properties[ps.name] = addAnnotations(go(type, state, true, [...path, ps.name]), contextAnnotations(type, ps.annotations))
    if (!ps.isOptional && pruned === undefined) required.push(ps.name)
  }
  if (patternProperties !== undefined) {
    delete output.additionalProperties
    output.patternProperties = { "": patternProperties }
  }
  if (propertyNames !== undefined) output.propertyNames = propertyNames
  return addViewAnnotations(output, v)
}

const isJsonObject = (json: unknown): json is Json & { readonly properties: Json } =>
  isRecord(json) && json.type === "object" && isRecord(json.properties)

const transformation = (v: ViewTransformation, state: Go, identifier: boolean, path: ReadonlyArray<PropertyKey>): Json => {
  const from = go(v.from, state, identifier, path)
  if (v.properties !== undefined && isJsonObject(from)) {
    const to = go(v.to, { defs: {}, errors: false }, false, path)
    if (isJsonObject(to)) {
      const fromProperties: Json = { ...from.properties }
      for (const t of v.properties) {
        if (typeof t.to !== "string" || typeof t.from !== "string") continue
        const toProperty = to.properties[t.to]
        const fromProperty = fromProperties[t.from]
        if (!isRecord(toProperty) || !isRecord(fromProperty)) continue
        const annotations: Json = {}
        if (typeof toProperty.title === "string") annotations.title = toProperty.title
        if (typeof toProperty.description === "string") annotations.description = toProperty.description
        if (Array.isArray(toProperty.examples)) annotations.examples = toProperty.examples
        if (Object.hasOwn(toProperty, "default") && toProperty.default !== undefined) annotations.default = toProperty.default
        fromProperties[t.from] = addAnnotations(fromProperty, annotations)
      }
      return addViewAnnotations({ ...from, properties: fromProperties }, v)
    }
  }
  return addViewAnnotations(from, v)
}
