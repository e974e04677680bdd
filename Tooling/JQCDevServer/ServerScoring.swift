import JQCForms
import JQCKit

/// The dev server's inspection scorer: JQCForms' `InspectionScorer`, the very code the client scores with,
/// so client and server agree to the last digit (SCORING.md; seed 001 §18).
enum ServerScoring {
    /// The score of `formData` against `schema`, rounded like Python's `round(x, 2)`.
    /// - Parameters:
    ///   - schema: the template's `form_schema` (a JSON array of field objects).
    ///   - formData: field-id string → answer, as stored.
    /// - Returns: 0…100, or `nil` when no scoreable field was counted.
    static func score(schema: JSONValue, formData: [String: JSONValue]) -> Double? {
        InspectionScorer.score(schema: schema, formData: formData)
    }
}

extension ServerScoring {
    /// `value` rounded to two decimals like Python's `round(x, 2)` (for averages in dashboard stats).
    static func roundedToHundredths(_ value: Double) -> Double {
        PythonRounding.roundToHundredths(value)
    }
}
