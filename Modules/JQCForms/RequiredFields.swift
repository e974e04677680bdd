import JQCKit

/// Required-field validation before submit (SCORING.md "Required fields").
public enum RequiredFields {
    /// Whether a stored answer counts as missing for a required field: absent, `null`, `""`,
    /// `"false"`, `false`, `"0"`, `0` (or `0.0`) or `[]`.
    public static func isMissing(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?: true
        case .string(let text)?: text.isEmpty || text == "false" || text == "0"
        case .bool(let flag)?: !flag
        case .int(let number)?: number == 0
        case .double(let number)?: number == 0
        case .array(let items)?: items.isEmpty
        case .object?: false
        }
    }

    /// The required fields that have no answer, in schema order (display-only types never count).
    /// - Parameters:
    ///   - schema: the template's schema.
    ///   - answers: field-id string → JSON value.
    /// - Returns: the missing fields; empty when submit may go ahead.
    public static func missing(in schema: FormSchema, answers: [String: JSONValue]) -> [FormField] {
        schema.fields.filter { $0.required && !$0.type.isDisplayOnly && isMissing(answers[$0.id]) }
    }

    /// The labels of the missing required fields, in schema order, for the refusal message.
    public static func missingLabels(in schema: FormSchema, answers: [String: JSONValue]) -> [String] {
        missing(in: schema, answers: answers).map(\.displayLabel)
    }
}
