import JQCKit

/// The inspection score, computed exactly as SCORING.md says (seed 001 §18), shared by the client
/// (at submit) and the dev server (on receipt) so both agree to the last digit.
///
/// Scoreable types are `rating`, `checkbox`, `radio` and `pass_fail`; each counted field earns a part
/// of 1, and the score is `round(100 × Σ earned / Σ counted, 2)` (Python rounding, see
/// ``PythonRounding``), or `nil` when nothing is counted.
public enum InspectionScorer {
    /// The keywords that make a `radio` or `pass_fail` answer a pass, compared case-insensitively and
    /// untrimmed (SCORING.md).
    public static let passKeywords: Set<String> = ["pass", "yes", "ok", "good", "acceptable", "compliant"]

    /// The score of one set of answers.
    /// - Parameters:
    ///   - schema: the template's `form_schema` JSON (an array of field objects).
    ///   - formData: the answers: field-id string → JSON value, exactly as stored.
    /// - Returns: the score in 0…100 rounded to hundredths, or `nil` when no field is counted.
    public static func score(schema: JSONValue, formData: [String: JSONValue]) -> Double? {
        explain(schema: FormSchema(json: schema), formData: formData).score
    }

    /// The score of one set of answers against an already-read schema. See ``score(schema:formData:)``.
    public static func score(schema: FormSchema, formData: [String: JSONValue]) -> Double? {
        explain(schema: schema, formData: formData).score
    }

    /// The score with each scoreable field's part, so a disputed score can be explained line by line
    /// (`jqc-shell score FILE --explain`).
    /// - Parameters:
    ///   - schema: the template's `form_schema` JSON.
    ///   - formData: field-id string → JSON value.
    /// - Returns: every scoreable field in schema order with whether it counted and what it earned.
    public static func explain(schema: JSONValue, formData: [String: JSONValue]) -> ScoreExplanation {
        explain(schema: FormSchema(json: schema), formData: formData)
    }

    /// The explanation against an already-read schema. See the JSON overload.
    public static func explain(schema: FormSchema, formData: [String: JSONValue]) -> ScoreExplanation {
        var parts: [ScoreExplanation.Part] = []
        var earnedTotal = 0.0
        var countedTotal = 0
        for field in schema.fields where field.type.isScoreable {
            let value = formData[field.id]
            let earned = self.earned(type: field.type, value: value)
            if let earned {
                earnedTotal += earned
                countedTotal += 1
            }
            parts.append(
                ScoreExplanation.Part(
                    fieldID: field.id, type: field.type, label: field.displayLabel,
                    value: value, counted: earned != nil, earned: earned ?? 0))
        }
        let score =
            countedTotal == 0
            ? nil : PythonRounding.roundToHundredths(100 * earnedTotal / Double(countedTotal))
        return ScoreExplanation(parts: parts, earned: earnedTotal, counted: countedTotal, score: score)
    }

    /// What one answer earns, out of 1.
    /// - Returns: `nil` when the field is not counted (an unanswered rating or pass/fail, or a type
    ///   that is not scoreable).
    public static func earned(type: FormFieldType, value: JSONValue?) -> Double? {
        switch type {
        case .rating:
            return ratingValue(value).map { Double($0) / 5 }
        case .checkbox:
            return value == .string("true") || value == .bool(true) ? 1 : 0
        case .radio:
            return isPass(value) ? 1 : 0
        case .passFail:
            guard let text = value?.stringValue, !text.isEmpty else { return nil }
            return isPass(.string(text)) ? 1 : 0
        default:
            return nil
        }
    }

    /// A rating answer as 1…5, or `nil` when it is unanswered or not a rating (SCORING.md): a JSON
    /// number with an integral value, or text that is an optionally signed run of ASCII digits with
    /// optional surrounding whitespace; `0`, fractions, `"4.0"`, booleans and out-of-range values are
    /// not ratings.
    public static func ratingValue(_ value: JSONValue?) -> Int? {
        let number: Int
        switch value {
        case .int(let integer)?:
            guard (1...5).contains(integer) else { return nil }
            number = Int(integer)
        case .double(let double)?:
            guard double.rounded() == double, (1...5).contains(double) else { return nil }
            number = Int(double)
        case .string(let text)?:
            guard let parsed = integerText(text) else { return nil }
            number = parsed
        default:
            return nil
        }
        return (1...5).contains(number) ? number : nil
    }

    /// Reads `" +04 "`-style text: whitespace, an optional sign, ASCII digits, whitespace.
    /// - Returns: the value, or `nil` for anything else; values past 99 are returned as 100.
    private static func integerText(_ text: String) -> Int? {
        var scalars = Substring(text).unicodeScalars.drop(while: \.properties.isWhitespace)
        while let last = scalars.last, last.properties.isWhitespace { scalars = scalars.dropLast() }
        var negative = false
        if let first = scalars.first, first == "+" || first == "-" {
            negative = first == "-"
            scalars = scalars.dropFirst()
        }
        guard !scalars.isEmpty, scalars.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        let digits = scalars.drop(while: { $0 == "0" })
        guard digits.count <= 2 else { return negative ? -100 : 100 }
        let magnitude = digits.reduce(0) { $0 * 10 + Int($1.value - 48) }
        return negative ? -magnitude : magnitude
    }

    private static func isPass(_ value: JSONValue?) -> Bool {
        guard let text = value?.stringValue else { return false }
        return passKeywords.contains(text.lowercased())
    }
}

/// A score taken apart: each scoreable field's part and the totals (SCORING.md).
public struct ScoreExplanation: Sendable, Hashable {
    /// One scoreable field's part of the score.
    public struct Part: Sendable, Hashable {
        /// The field id (string key of `form_data`).
        public let fieldID: String
        /// The field's type (`rating`, `checkbox`, `radio` or `pass_fail`).
        public let type: FormFieldType
        /// The label shown to people.
        public let label: String
        /// The answer as stored, or `nil` when there is none.
        public let value: JSONValue?
        /// Whether the field counts towards the score.
        public let counted: Bool
        /// What it earned, 0…1 (0 when not counted).
        public let earned: Double

        /// The part as JSON: `{id, type, label, value, counted, earned}` (`value` null when absent).
        public var json: JSONValue {
            [
                "id": .string(fieldID), "type": .string(type.rawValue), "label": .string(label),
                "value": value ?? .null, "counted": .bool(counted), "earned": .double(earned),
            ]
        }
    }

    /// The scoreable fields in schema order.
    public let parts: [Part]
    /// Σ earned over counted fields.
    public let earned: Double
    /// How many fields counted.
    public let counted: Int
    /// The score, or `nil` when nothing counted.
    public let score: Double?

    /// The explanation as JSON: `{score, earned, counted, fields: [part]}`.
    public var json: JSONValue {
        [
            "score": score.map(JSONValue.double) ?? .null, "earned": .double(earned), "counted": .int(Int64(counted)),
            "fields": .array(parts.map(\.json)),
        ]
    }

    /// One line per part (`2  rating  "Floors clean and dry"  0.40 of 1`) and a total line, for people.
    public var lines: [String] {
        var lines = parts.map { part in
            let share = part.counted ? "\(ScoreExplanation.format(part.earned)) of 1" : "not counted"
            return "\(part.fieldID)  \(part.type.rawValue)  \"\(part.label)\"  \(share)"
        }
        if let score {
            let total = ScoreExplanation.format(earned)
            lines.append("total: \(total) of \(counted) → \(ScoreExplanation.format(score))")
        } else {
            lines.append("total: nothing counted → no score")
        }
        return lines
    }

    /// A number with at most two decimals and no trailing zeros (`0.4`, `85.71`, `100`).
    public static func format(_ value: Double) -> String {
        let rounded = PythonRounding.roundToHundredths(value)
        // Checked: a server's overall_score of 1e300 (history, follow-ups) is printed, never converted with a trap.
        if rounded == rounded.rounded(), let whole = Int(exactly: rounded) { return String(whole) }
        return JSONValue.double(rounded).jsonString()
    }
}
