import Foundation
import JQCKit

/// The dev server's inspection scorer, following ../shared/SCORING.md exactly (seed 001 §18).
///
/// Kept in this one file so the integrator can swap it for `JQCForms.InspectionScorer` in one line
/// when that lands (issue 6): one scorer for client and server.
enum ServerScoring {
    private static let keywords: Set<String> = ["pass", "yes", "ok", "good", "acceptable", "compliant"]

    /// The score of `formData` against `schema`, rounded like Python's `round(x, 2)`.
    /// - Parameters:
    ///   - schema: the template's `form_schema` (a JSON array of field objects).
    ///   - formData: field-id string → answer, as stored.
    /// - Returns: 0…100, or `nil` when no scoreable field was counted.
    static func score(schema: JSONValue, formData: [String: JSONValue]) -> Double? {
        guard let fields = schema.arrayValue else { return nil }
        var seen = Set<String>()
        var earned = 0.0
        var counted = 0
        for field in fields {
            guard let object = field.objectValue, let id = FieldID.normalize(object["id"]) else { continue }
            guard let type = object["type"]?.stringValue else { continue }
            guard !seen.contains(id) else { continue }
            seen.insert(id)
            let value = formData[id]
            switch type {
            case "rating":
                if let rating = ratingValue(value) {
                    earned += Double(rating) / 5
                    counted += 1
                }
            case "checkbox":
                counted += 1
                if value == .bool(true) || value == .string("true") { earned += 1 }
            case "radio":
                counted += 1
                if let text = value?.stringValue, keywords.contains(text.lowercased()) { earned += 1 }
            case "pass_fail":
                if let text = value?.stringValue, !text.isEmpty {
                    counted += 1
                    if keywords.contains(text.lowercased()) { earned += 1 }
                }
            default:
                continue
            }
        }
        guard counted > 0 else { return nil }
        return roundedToHundredths(100 * earned / Double(counted))
    }

    /// An integer rating 1…5 from a number with an integral value or a string of ASCII digits.
    static func ratingValue(_ value: JSONValue?) -> Int? {
        var number: Int?
        switch value {
        case .int(let integer)?:
            number = (1...5).contains(integer) ? Int(integer) : nil
        case .double(let double)? where double.rounded() == double && abs(double) < 1e9:
            number = Int(double)
        case .string(let text)?:
            number = integerText(text)
        default:
            number = nil
        }
        guard let number, (1...5).contains(number) else { return nil }
        return number
    }

    /// An optionally signed run of ASCII digits with optional surrounding whitespace.
    private static func integerText(_ text: String) -> Int? {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C]
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, whitespace.contains(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, whitespace.contains(last) { bytes = bytes.dropLast() }
        var negative = false
        if let sign = bytes.first, sign == 0x2B || sign == 0x2D {
            negative = sign == 0x2D
            bytes = bytes.dropFirst()
        }
        guard !bytes.isEmpty, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let digits = bytes.drop(while: { $0 == 0x30 })
        guard digits.count <= 6 else { return nil }
        var value = 0
        for digit in digits { value = value * 10 + Int(digit - 0x30) }
        return negative ? -value : value
    }

    /// Python's `round(x, 2)`: the correctly rounded decimal of the double, ties to even (glibc's
    /// `%.2f` is exact on the binary value).
    static func roundedToHundredths(_ value: Double) -> Double {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%.2f", $0) }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Double(text) ?? value
    }
}
