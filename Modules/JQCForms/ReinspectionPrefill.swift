import JQCKit

/// The answers a re-inspection starts with, copied from its parent (seed 001 §15, rule 79).
public enum ReinspectionPrefill {
    /// Copies the parent's answers forward, except fields of type `rating`, `pass_fail`, `image` and
    /// `signature`, so every scoreable item is judged afresh and the parent's photos stay with it.
    ///
    /// The exclusions come from the schema, so without a schema nothing could be excluded: when the
    /// schema is missing or has no fields, nothing is copied (rule 79). Values are copied as stored —
    /// arrays stay arrays, never joined into text. Every entry of the raw schema whose type is
    /// excluded blocks its id, duplicates included, so a parent's photo path can never leak through.
    /// - Parameters:
    ///   - parentAnswers: the parent's `form_data`: field-id string → JSON value.
    ///   - schema: the template's schema, or `nil` when it could not be resolved.
    /// - Returns: the answers to start the re-inspection with.
    public static func answers(
        fromParent parentAnswers: [String: JSONValue],
        schema: FormSchema?
    ) -> [String: JSONValue] {
        guard let schema, !schema.isEmpty else { return [:] }
        var excluded = Set(schema.fields.filter { $0.type.isExcludedFromPrefill }.map(\.id))
        for entry in schema.raw.arrayValue ?? [] {
            guard let id = FieldID.normalize(entry["id"]), let type = entry["type"]?.stringValue else { continue }
            if FormFieldType(rawValue: type).isExcludedFromPrefill { excluded.insert(id) }
        }
        return parentAnswers.filter { !excluded.contains($0.key) }
    }
}
