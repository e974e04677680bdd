import Foundation
import JQCForms
import JQCKit

/// Generated forms for the local-write growth rows (issue 17: forms of 10, 100 and 1,000 fields): a schema
/// of `fields` input fields cycling through rating, pass_fail, text, checkbox, number, radio and textarea,
/// two to a row on the 12-column grid, and a full set of answers for it (every field answered, as a form
/// nearly done), so `json_set` patches a `form_data` of the form's full size.
struct GrowthForm {
    /// How many input fields.
    let fields: Int
    /// The schema JSON (the pinned `schema_snapshot`).
    let schema: JSONValue
    /// Its hash (``FormSchema/hash``).
    let hash: String
    /// An answer for every field, as the shell stores them.
    let answers: [String: JSONValue]
    /// The ids of the rating fields (answered with `.rating`).
    let ratingIDs: [String]
    /// The ids of the text fields (answered with the shell's words).
    let textIDs: [String]

    init(fields: Int) {
        self.fields = fields
        var schema: [JSONValue] = []
        var answers: [String: JSONValue] = [:]
        var ratings: [String] = []
        var texts: [String] = []
        for index in 0..<fields {
            let id = 1_000 + index
            let key = String(id)
            var field: [String: JSONValue] = [
                "id": .int(Int64(id)), "label": .string("Item \(index + 1)"),
                "row": .int(Int64(index / 2 + 1)), "col": .int(index % 2 == 0 ? 1 : 7), "colSpan": 6,
            ]
            switch index % 7 {
            case 0:
                field["type"] = "rating"
                answers[key] = .string(String(1 + index % 5))
                ratings.append(key)
            case 1:
                field["type"] = "pass_fail"
                answers[key] = index % 3 == 0 ? "Fail" : "Pass"
            case 2:
                field["type"] = "text"
                answers[key] = .string("Checked by crew \(index % 9)")
                texts.append(key)
            case 3:
                field["type"] = "checkbox"
                answers[key] = index % 2 == 0 ? "true" : "false"
            case 4:
                field["type"] = "number"
                answers[key] = .string(String(index % 40))
            case 5:
                field["type"] = "radio"
                field["options"] = ["Good", "Acceptable", "Poor"]
                answers[key] = "Good"
            default:
                field["type"] = "textarea"
                answers[key] = .string("Wiped down; restocked \(index % 9) items.")
            }
            schema.append(.object(field))
        }
        self.schema = .array(schema)
        self.hash = FormSchema(json: .array(schema)).hash
        self.answers = answers
        self.ratingIDs = ratings
        self.textIDs = texts
    }
}
