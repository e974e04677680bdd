/// Field-id normalisation: form schemas carry ids as JSON integers or strings, and answers
/// (`form_data`) are always keyed by strings (seed 001 rule 9; SCORING.md, "usable id").
///
/// A usable id is a JSON integer (not a boolean, not a fraction) or a non-empty string. Integer `5`
/// becomes `"5"`, string `"5"` stays `"5"`, and `"05"` is a different key from `5`. Nothing is ever
/// rendered as `"Optional(5)"`.
public enum FieldID {
    /// The string key for a schema field's `id`.
    /// - Parameter id: the raw `id` member of a field object (`nil` when it is missing).
    /// - Returns: the key, or `nil` when the id is not usable (missing, `null`, `""`, a boolean, a
    ///   fraction such as `2.5`, an array or an object).
    public static func normalize(_ id: JSONValue?) -> String? {
        switch id {
        case .int(let value)?:
            return String(value)
        case .string(let value)? where !value.isEmpty:
            return value
        default:
            return nil
        }
    }
}
