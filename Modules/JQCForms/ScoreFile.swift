import Foundation
import JQCKit

/// The input of the offline `jqc-shell score FILE [--explain]` tool (SHELL.md):
/// `{"schema": [field…], "form_data": {field-id: value…}}`.
public struct ScoreFile: Sendable, Hashable {
    /// The template's `form_schema` JSON.
    public let schema: JSONValue
    /// The answers: field-id string → JSON value.
    public let formData: [String: JSONValue]

    /// Reads a score file.
    /// - Parameter data: UTF-8 JSON text of an object with `schema` (an array) and `form_data` (an
    ///   object; missing or `null` means no answers).
    /// - Throws: ``FormsError`` `.malformedSchema` when the text is not JSON or lacks those members.
    public init(data: Data) throws {
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            throw FormsError(
                .malformedSchema,
                "The score file is not valid JSON; it must be "
                    + "{\"schema\": [...], \"form_data\": {...}}.", cause: error)
        }
        guard let object = json.objectValue, case .array? = object["schema"] else {
            throw FormsError(
                .malformedSchema,
                "The score file needs a \"schema\" array of fields, as in "
                    + "{\"schema\": [...], \"form_data\": {...}}.")
        }
        switch object["form_data"] {
        case nil, .null?:
            formData = [:]
        case .object(let answers)?:
            formData = answers
        default:
            throw FormsError(.malformedSchema, "The score file's \"form_data\" must be an object of field id → answer.")
        }
        schema = object["schema"]!
    }

    /// The score of the file's answers (SCORING.md), or `nil` when nothing counts.
    public var score: Double? { InspectionScorer.score(schema: schema, formData: formData) }

    /// Each scoreable field's part, for `--explain`.
    public var explanation: ScoreExplanation { InspectionScorer.explain(schema: schema, formData: formData) }
}
