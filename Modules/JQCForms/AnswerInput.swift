import Foundation
import JQCKit

/// What setting an answer does to the stored value.
public enum AnswerChange: Sendable, Hashable {
    /// Store this value under the field's id.
    case set(JSONValue)
    /// Remove the field's answer (a rating of 0, an empty value).
    case clear
}

/// Typed answer input: turns the words a person typed (`answer FIELD_ID VALUE…`) into the value
/// stored in `form_data`, exactly as SHELL.md's `answer` row says, or refuses with a sentence that
/// names the field and what it accepts.
///
/// | type | accepts | stored as |
/// |---|---|---|
/// | rating | `0`…`5` (`0` clears) | `"4"` |
/// | checkbox | `true` / `false` (also yes/no) | `"true"` / `"false"` |
/// | radio, select | one of the options, case-insensitive | the option's text |
/// | pass_fail | `Pass` / `Fail`, or the schema's options | `"Pass"` / `"Fail"` / the option's text |
/// | checkbox_group | one or more options (words or comma-separated) | array of option texts, in option order |
/// | table | `ROW COLUMN VALUE…` (row 1-based; column by header or number) | `table_rows` objects `{header: text}` |
/// | date | `yyyy-MM-dd` | the text |
/// | number | a decimal number | the text |
/// | email | `name@host.domain` | the text |
/// | text, textarea | anything (words joined by spaces) | the text |
/// | image, signature | a photo path: `local://…`, `uploads/…` or a file path | the text |
///
/// An empty value (`""`, or no words) clears any field. Display-only fields refuse every answer.
public enum AnswerInput {
    /// The change that `arguments` make to `field`'s answer.
    /// - Parameters:
    ///   - field: the field being answered.
    ///   - arguments: the words after the field id (already split like a shell).
    ///   - current: the field's stored answer (a table updates one cell of it).
    /// - Returns: the value to store, or ``AnswerChange/clear``.
    /// - Throws: ``FormsError`` `.notAnswerable` for display-only fields, `.invalidAnswer` when the
    ///   value does not fit the type; the message names the field and what it accepts.
    public static func change(for field: FormField, arguments: [String], current: JSONValue?) throws -> AnswerChange {
        if field.type.isDisplayOnly {
            let kind = kindName(field.type)
            throw FormsError(
                .notAnswerable,
                "Field \(field.reference) is a \(kind) and takes no answer; "
                    + "answer one of the form's input fields instead.")
        }
        let joined = arguments.joined(separator: " ")
        if field.type != .table && joined.trimmingCharacters(in: .whitespaces).isEmpty { return .clear }
        func refuse(_ accepts: String) -> FormsError {
            FormsError(.invalidAnswer, "Field \(field.reference) takes \(accepts); \"\(joined)\" is not accepted.")
        }
        switch field.type {
        case .rating:
            let text = joined.trimmingCharacters(in: .whitespaces)
            guard text.count == 1, let value = Int(text), (0...5).contains(value) else {
                throw refuse("a rating from 0 to 5 (0 clears it)")
            }
            return value == 0 ? .clear : .set(.string(String(value)))
        case .checkbox:
            switch joined.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "yes", "checked", "x": return .set("true")
            case "false", "no", "unchecked": return .set("false")
            default: throw refuse("true or false")
            }
        case .radio, .select:
            guard !field.options.isEmpty else { return .set(.string(joined)) }
            guard let option = match(joined, in: field.options) else {
                throw refuse("one of \(list(field.options))")
            }
            return .set(.string(option))
        case .passFail:
            let options = field.options.isEmpty ? ["Pass", "Fail"] : field.options
            guard let option = match(joined, in: options) else {
                throw refuse("one of \(list(options)), or \"\" to clear")
            }
            return .set(.string(option))
        case .checkboxGroup:
            return try checkboxGroup(field, arguments: arguments, refuse: refuse)
        case .table:
            return try table(field, arguments: arguments, current: current)
        case .date:
            let text = joined.trimmingCharacters(in: .whitespaces)
            guard CalendarDay(text) != nil else { throw refuse("a date written yyyy-MM-dd (for example 2026-07-14)") }
            return .set(.string(text))
        case .number:
            let text = joined.trimmingCharacters(in: .whitespaces)
            guard isDecimalNumber(text) else { throw refuse("a number such as 12 or 4.5") }
            return .set(.string(text))
        case .email:
            let text = joined.trimmingCharacters(in: .whitespaces)
            guard isEmail(text) else { throw refuse("an e-mail address such as name@example.com") }
            return .set(.string(text))
        case .image, .signature:
            let text = joined.trimmingCharacters(in: .whitespaces)
            guard arguments.count == 1, !text.contains("\n") else {
                throw refuse("one photo path (local://…, uploads/… or a file path)")
            }
            return .set(.string(text))
        case .text, .textarea:
            return .set(.string(joined))
        case .section, .label, .button, .unknown:
            throw FormsError(.notAnswerable, "Field \(field.reference) takes no answer.")
        }
    }

    /// The option equal to `text` ignoring case (and surrounding spaces), in the option's own spelling.
    static func match(_ text: String, in options: [String]) -> String? {
        let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
        return options.first { $0.trimmingCharacters(in: .whitespaces).lowercased() == wanted }
    }

    private static func checkboxGroup(
        _ field: FormField, arguments: [String],
        refuse: (String) -> FormsError
    ) throws -> AnswerChange {
        let words = arguments.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        guard !field.options.isEmpty else { return .set(.array(words.map(JSONValue.string))) }
        var chosen = Set<String>()
        let joined = arguments.joined(separator: " ")
        if let whole = match(joined, in: field.options) {
            chosen.insert(whole)
        } else {
            for word in words {
                if let option = match(word, in: field.options) {
                    chosen.insert(option)
                    continue
                }
                for piece in word.split(separator: ",") where !piece.trimmingCharacters(in: .whitespaces).isEmpty {
                    guard let option = match(String(piece), in: field.options) else {
                        throw refuse("one or more of \(list(field.options))")
                    }
                    chosen.insert(option)
                }
            }
        }
        return .set(.array(field.options.filter(chosen.contains).map(JSONValue.string)))
    }

    private static func table(_ field: FormField, arguments: [String], current: JSONValue?) throws -> AnswerChange {
        let headers = field.columnHeaders
        let accepts =
            "ROW COLUMN VALUE, with ROW from 1 to \(field.tableRows) and COLUMN one of "
            + (headers.isEmpty ? "its columns" : "\(list(headers)) or its number")
        func refuse() -> FormsError {
            FormsError(
                .invalidAnswer,
                "Field \(field.reference) is a table and takes \(accepts); "
                    + "\"\(arguments.joined(separator: " "))\" is not accepted.")
        }
        guard !headers.isEmpty else {
            throw FormsError(
                .invalidAnswer,
                "Field \(field.reference) is a table without column headers, "
                    + "so it cannot be answered; ask for the template to be fixed.")
        }
        guard arguments.count >= 2, let row = Int(arguments[0]), (1...field.tableRows).contains(row) else {
            throw refuse()
        }
        let column: String
        if let number = Int(arguments[1]), (1...headers.count).contains(number) {
            column = headers[number - 1]
        } else if let header = match(arguments[1], in: headers) {
            column = header
        } else {
            throw refuse()
        }
        var rows: [[String: JSONValue]] = (current?.arrayValue ?? []).map { $0.objectValue ?? [:] }
        while rows.count < field.tableRows { rows.append([:]) }
        for index in rows.indices {
            for header in headers where rows[index][header] == nil { rows[index][header] = "" }
        }
        rows[row - 1][column] = .string(arguments.dropFirst(2).joined(separator: " "))
        let isBlank = rows.allSatisfy { $0.values.allSatisfy { $0 == "" || $0 == .null } }
        return isBlank ? .clear : .set(.array(rows.map(JSONValue.object)))
    }

    static func isDecimalNumber(_ text: String) -> Bool {
        var body = Substring(text)
        if body.first == "-" || body.first == "+" { body = body.dropFirst() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.contains(where: { !$0.isEmpty }) else { return false }
        return parts.allSatisfy { $0.allSatisfy { ("0"..."9").contains($0) } }
    }

    static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(where: \.isWhitespace) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }

    static func list(_ options: [String]) -> String {
        options.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    static func kindName(_ type: FormFieldType) -> String {
        switch type {
        case .section: "section heading"
        case .label: "label"
        case .button: "button"
        default: "field of a type this app does not know (\"\(type.rawValue)\")"
        }
    }
}

/// A form's answers (`form_data`): field-id string → JSON value, exactly as stored (CONTRACT.md).
public struct FormAnswers: Sendable, Hashable {
    /// The stored answers.
    public var values: [String: JSONValue]

    /// Answers from stored `form_data`.
    public init(_ values: [String: JSONValue] = [:]) {
        self.values = values
    }

    /// The answer for a field id, or `nil` when there is none.
    public subscript(fieldID: String) -> JSONValue? {
        values[fieldID]
    }

    /// Sets one answer from typed words (SHELL.md `answer FIELD_ID VALUE…`); see ``AnswerInput``.
    /// - Parameters:
    ///   - fieldID: the field's id as a string (`"5"`).
    ///   - arguments: the value's words.
    ///   - schema: the inspection's template schema.
    /// - Returns: the value now stored, or `nil` when the answer was cleared.
    /// - Throws: ``FormsError`` `.unknownField` when the form has no such field, or as
    ///   ``AnswerInput/change(for:arguments:current:)`` does.
    @discardableResult
    public mutating func set(fieldID: String, arguments: [String], schema: FormSchema) throws -> JSONValue? {
        guard let field = schema.field(id: fieldID) else {
            let ids = schema.fields.filter { !$0.type.isDisplayOnly }.map(\.id)
            let known = ids.isEmpty ? "it has no input fields." : "its input fields are \(ids.joined(separator: ", "))."
            throw FormsError(.unknownField, "The form has no field with id \"\(fieldID)\"; \(known)")
        }
        switch try AnswerInput.change(for: field, arguments: arguments, current: values[fieldID]) {
        case .set(let value):
            values[fieldID] = value
            return value
        case .clear:
            values[fieldID] = nil
            return nil
        }
    }
}

extension FormAnswers {
    /// Stores a photo path in an `image` or `signature` field (SHELL.md `photo FIELD_ID FILE`; a
    /// signature is captured as an image). The path is usually the `local://…` sentinel of a photo
    /// not yet uploaded (seed 001 rule 10).
    /// - Parameters:
    ///   - fieldID: the field's id as a string.
    ///   - path: the stored photo's path.
    ///   - schema: the inspection's template schema.
    /// - Throws: ``FormsError`` `.unknownField` when there is no such field, `.invalidAnswer` when the
    ///   field is not an image or signature field or the path is empty.
    public mutating func setPhoto(fieldID: String, path: String, schema: FormSchema) throws {
        guard let field = schema.field(id: fieldID), field.type.isPhoto else {
            if let field = schema.field(id: fieldID) {
                throw FormsError(
                    .invalidAnswer,
                    "Field \(field.reference) is a \(field.type.rawValue) field; "
                        + "photos go into image or signature fields.")
            }
            try set(fieldID: fieldID, arguments: [path], schema: schema)  // throws .unknownField
            return
        }
        guard !path.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw FormsError(.invalidAnswer, "Field \(field.reference) needs a photo path; the path given is empty.")
        }
        values[fieldID] = .string(path)
    }
}
