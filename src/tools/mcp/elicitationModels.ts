/**
 * What a bridged server's question is and what its answer may be, in our own terms: the form
 * (the server's `requestedSchema`, the spec's flat object of primitive fields) read into one
 * field per property, each of one of five kinds, so an application renders five kinds of input
 * and never the six JSON Schema spellings of an enum.
 *
 * @since 1.0.0
 */

/**
 * A field's value in an answer: a text (a choice's value too), a number, a yes/no, or the
 * values picked in a multiple choice.
 *
 * @since 1.0.0
 * @category models
 */
export type McpElicitationValue = string | number | boolean | ReadonlyArray<string>

/**
 * What a field has whatever its kind: its key in the answer's `content`, what to call it, what
 * it is for, and whether the answer must have it.
 *
 * @since 1.0.0
 * @category models
 */
export interface McpElicitationFieldBase {
  readonly key: string
  /** The server's `title`, else the key. */
  readonly title: string
  readonly description?: string | undefined
  readonly required: boolean
}

/**
 * One option of a choice: the value that goes in the answer and the words shown for it.
 *
 * @since 1.0.0
 * @category models
 */
export interface McpElicitationOption {
  readonly value: string
  readonly title: string
}

/**
 * One field of a question's form.
 *
 * - `Text`: free text, with its length bounds and `format` (`email`, `uri`, `date`, `date-time`);
 * - `Number`: a number (`integer`: a whole one) within its bounds;
 * - `Boolean`: yes or no;
 * - `Choice`: one of `options` (the schema's `enum`, `enum` + `enumNames`, or `oneOf`);
 * - `Choices`: some of `options` (an array of `enum` or `anyOf` items), within its item bounds.
 *
 * @since 1.0.0
 * @category models
 */
export type McpElicitationField =
  | (McpElicitationFieldBase & {
    readonly _tag: "Text"
    readonly minLength?: number | undefined
    readonly maxLength?: number | undefined
    readonly format?: "email" | "uri" | "date" | "date-time" | undefined
    readonly default?: string | undefined
  })
  | (McpElicitationFieldBase & {
    readonly _tag: "Number"
    readonly integer: boolean
    readonly minimum?: number | undefined
    readonly maximum?: number | undefined
    readonly default?: number | undefined
  })
  | (McpElicitationFieldBase & { readonly _tag: "Boolean"; readonly default?: boolean | undefined })
  | (McpElicitationFieldBase & {
    readonly _tag: "Choice"
    readonly options: ReadonlyArray<McpElicitationOption>
    readonly default?: string | undefined
  })
  | (McpElicitationFieldBase & {
    readonly _tag: "Choices"
    readonly options: ReadonlyArray<McpElicitationOption>
    readonly minItems?: number | undefined
    readonly maxItems?: number | undefined
    readonly default?: ReadonlyArray<string> | undefined
  })

/**
 * The form as the server sent it (`requestedSchema`): an object schema whose properties are
 * primitive fields. It passed the bridge's bounds before any application sees it.
 *
 * @since 1.0.0
 * @category models
 */
export interface McpElicitationSchema {
  readonly type: "object"
  readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  readonly required?: ReadonlyArray<string> | undefined
}

/**
 * A bridged server's question to the person.
 *
 * @since 1.0.0
 * @category models
 */
export interface McpElicitationRequest {
  /** The server's name in the bridge's configuration: show it, so the person knows who asks. */
  readonly server: string
  /**
   * The tool whose call led to the question, when the bridge can tell (the calls of that server
   * in flight when the question came are all of this tool).
   */
  readonly tool?: string | undefined
  /** The server's words (at most `MAX_ELICITATION_MESSAGE_CHARS`, unescaped: escape them to show them). */
  readonly message: string
  /** The form as the server sent it. */
  readonly requestedSchema: McpElicitationSchema
  /** The form read into fields, in the server's order. */
  readonly fields: ReadonlyArray<McpElicitationField>
}

/**
 * The person's answer: `accept` with the `content` they gave (a field left out takes its
 * default, when the schema has one), `decline` (they said no), or `cancel` (they dismissed the
 * question without choosing).
 *
 * @since 1.0.0
 * @category models
 */
export interface McpElicitationAnswer {
  readonly action: "accept" | "decline" | "cancel"
  readonly content?: Readonly<Record<string, McpElicitationValue>> | undefined
}
