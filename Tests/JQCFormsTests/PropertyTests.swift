import Foundation
import JQCKit
import Testing

@testable import JQCForms

/// Random schemas and answers from a seeded generator: nothing traps, and the scorer agrees with a
/// second, literal reading of SCORING.md written here independently.
@Suite("Property tests (seeded random schemas and answers)")
struct PropertyTests {
    static let types = FormFieldType.knownRawValues + ["button_submit", "mystery", ""]

    static func randomValue(_ generator: inout SeededGenerator) -> JSONValue {
        let pool: [JSONValue] = [
            "", "x", "true", "false", "True", "0", "1", "3", "5", "6", " 4 ", "4.0", "4.5", "-2", "+3", "٣",
            "pass", "PASS", " pass", "Yes", "ok", "Good", "acceptable", "compliant", "fail", "N/A",
            0, 1, 3, 5, 7, -1, .double(2.0), .double(2.5), true, false, .null, ["a", "b"], [], ["k": "v"],
            "local://abc.jpg", "2026-07-14",
        ]
        return pool.randomElement(using: &generator) ?? pool[0]
    }

    static func randomID(_ generator: inout SeededGenerator) -> JSONValue? {
        let pool: [JSONValue?] = [nil, .null, "", true, .double(2.5), 1, 2, 3, "1", "2", "3", "03", 4, "x", [1]]
        return pool.randomElement(using: &generator) ?? pool[0]
    }

    static func randomPlacement(_ generator: inout SeededGenerator) -> JSONValue? {
        let pool: [JSONValue?] = [
            nil, 1, 2, 6, 7, 12, 13, 0, -3, 99, "4", "x", .double(3.0), .double(2.5), .null,
            .int(Int64.max), .int(Int64.min), true,
        ]
        return pool.randomElement(using: &generator) ?? pool[0]
    }

    static func randomSchema(_ generator: inout SeededGenerator) -> JSONValue {
        var fields: [JSONValue] = []
        for _ in 0..<Int.random(in: 0...12, using: &generator) {
            if Int.random(in: 0..<20, using: &generator) == 0 {
                fields.append(randomValue(&generator))  // not even an object
                continue
            }
            var object: [String: JSONValue] = [:]
            if let id = randomID(&generator) { object["id"] = id }
            object["type"] =
                Int.random(in: 0..<4, using: &generator) == 0
                ? randomValue(&generator)
                : .string(types.randomElement(using: &generator) ?? types[0])
            object["label"] = Bool.random(using: &generator) ? "Field" : randomValue(&generator)
            for key in ["row", "col", "colSpan", "rowSpan", "table_rows"] {
                if let value = randomPlacement(&generator) { object[key] = value }
            }
            if Bool.random(using: &generator) { object["options"] = ["Pass", "Fail", "Good", 3, ["x"]] }
            if Bool.random(using: &generator) { object["col_headers"] = ["A", "B"] }
            if Bool.random(using: &generator) { object["required"] = randomValue(&generator) }
            fields.append(.object(object))
        }
        return .array(fields)
    }

    static func randomAnswers(_ generator: inout SeededGenerator) -> [String: JSONValue] {
        var answers: [String: JSONValue] = [:]
        for key in ["1", "2", "3", "03", "4", "x", ""] where Bool.random(using: &generator) {
            answers[key] = randomValue(&generator)
        }
        return answers
    }

    /// SCORING.md read literally, over the raw JSON, with C's exact `%.2f` as the rounding.
    static func referenceScore(schema: JSONValue, formData: [String: JSONValue]) -> Double? {
        let known = Set(FormFieldType.knownRawValues)
        var seen = Set<String>()
        var earned = 0.0
        var counted = 0
        for field in schema.arrayValue ?? [] {
            let id: String
            switch field["id"] {
            case .int(let number)?: id = String(number)
            case .string(let text)? where !text.isEmpty: id = text
            default: continue
            }
            guard let type = field["type"]?.stringValue, known.contains(type) || type.hasPrefix("button_") else {
                continue
            }
            guard seen.insert(id).inserted else { continue }
            let value = formData[id]
            let keywords: Set<String> = ["pass", "yes", "ok", "good", "acceptable", "compliant"]
            switch type {
            case "rating":
                var rating: Int?
                if case .int(let number)? = value { rating = Int(number) }
                if case .double(let number)? = value, number == number.rounded() { rating = Int(number) }
                if case .string(let text)? = value {
                    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                    let signed = trimmed.hasPrefix("+") || trimmed.hasPrefix("-")
                    let body = signed ? trimmed.dropFirst() : Substring(trimmed)
                    if !body.isEmpty, body.unicodeScalars.allSatisfy({ $0.isASCII && ("0"..."9").contains($0) }) {
                        rating = Int(trimmed.hasPrefix("+") ? String(body) : trimmed)
                    }
                }
                if let rating, (1...5).contains(rating) {
                    earned += Double(rating) / 5
                    counted += 1
                }
            case "checkbox":
                earned += value == "true" || value == .bool(true) ? 1 : 0
                counted += 1
            case "radio":
                earned += keywords.contains(value?.stringValue?.lowercased() ?? "") ? 1 : 0
                counted += 1
            case "pass_fail":
                if let text = value?.stringValue, !text.isEmpty {
                    earned += keywords.contains(text.lowercased()) ? 1 : 0
                    counted += 1
                }
            default:
                break
            }
        }
        guard counted > 0 else { return nil }
        return Double(String(format: "%.2f", 100 * earned / Double(counted))) ?? .nan
    }

    @Test("random schemas and answers never trap and score as SCORING.md reads")
    func scoringAgrees() {
        var generator = SeededGenerator(seed: 20_260_714)
        for round in 0..<3000 {
            let schema = Self.randomSchema(&generator)
            let answers = Self.randomAnswers(&generator)
            let score = InspectionScorer.score(schema: schema, formData: answers)
            #expect(score == Self.referenceScore(schema: schema, formData: answers), "round \(round): \(schema)")
            if let score { #expect((0...100).contains(score)) }
        }
    }

    @Test("random schemas read into fields that fit the 12-column grid, with unique ids")
    func schemaInvariants() {
        var generator = SeededGenerator(seed: 77)
        for _ in 0..<3000 {
            let schema = FormSchema(json: Self.randomSchema(&generator))
            #expect(Set(schema.fields.map(\.id)).count == schema.fields.count)
            for field in schema.fields {
                #expect(!field.id.isEmpty)
                #expect((1...12).contains(field.col))
                #expect((1...(13 - field.col)).contains(field.colSpan))
                #expect(field.row >= 1 && field.rowSpan >= 1 && field.tableRows >= 1)
                #expect(!(field.required && field.type.isDisplayOnly))
            }
        }
    }

    @Test("random forms render in every style and width without a line wider than the width")
    func renderingNeverTraps() {
        var generator = SeededGenerator(seed: 58)
        for _ in 0..<600 {
            let schema = FormSchema(json: Self.randomSchema(&generator))
            let answers = Self.randomAnswers(&generator)
            let width = [0, 20, 37, 80, 99, 100, 131, 200].randomElement(using: &generator) ?? 0
            for style in FormRenderer.Style.allCases {
                let text = FormRenderer.render(schema: schema, answers: answers, width: width, style: style)
                let limit = max(FormRenderer.minimumWidth, width)
                for line in text.split(separator: "\n") {
                    #expect(line.count <= limit, "\(style) at \(width): \(line)")
                }
            }
        }
    }

    @Test("random answers typed into random fields either store a value or refuse with a sentence")
    func answersNeverTrap() {
        var generator = SeededGenerator(seed: 9)
        let words = [
            "", "0", "3", "9", "true", "no", "pass", "Fail", "good", "2026-02-30", "2026-07-14", "1", "A",
            "x@y.z", "4.5", "-", "local://p.jpg", "Vacuumed,Trash", "Trash",
        ]
        for _ in 0..<3000 {
            let schema = FormSchema(json: Self.randomSchema(&generator))
            guard let field = schema.fields.randomElement(using: &generator) else { continue }
            var answers = FormAnswers(Self.randomAnswers(&generator))
            let arguments = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                words.randomElement(using: &generator) ?? ""
            }
            do {
                try answers.set(fieldID: field.id, arguments: arguments, schema: schema)
            } catch let error as FormsError {
                #expect(error.message.contains("(id \(field.id))"))
                #expect(error.message.hasSuffix("."))
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }
}
