import Foundation
import JQCKit

/// What setting an answer does to the stored value.
public enum AnswerChange: Sendable, Hashable {
    /// Store this value under the field's id.
    case set(JSONValue)
    /// Remove the field's answer (a rating of 0, an empty value).
    case clear
}

/// The shell's words for an answer (`answer FIELD_ID VALUE…`, SHELL.md), mapped onto an ``AnswerValue``
/// by the field's type — a convenience over the typed entry point, which does the checking and gives the
/// stored value. A refusal is a sentence that names the field and what it accepts.
///
/// | type | words | value |
/// |---|---|---|
/// | rating | `0`…`5` (`0` clears) | ``AnswerValue/rating(_:)`` |
/// | checkbox | `true` / `false` (also yes/no, checked/unchecked, x) | ``AnswerValue/bool(_:)`` |
/// | radio, select, pass_fail | one option, case-insensitive (pass_fail: `Pass` / `Fail` by default) | ``AnswerValue/option(_:)`` |
/// | checkbox_group | one or more options (words or comma-separated) | ``AnswerValue/options(_:)`` |
/// | table | `ROW COLUMN VALUE…` (row 1-based; column by header or number) | ``AnswerValue/tableCell(row:column:text:)`` |
/// | date | `yyyy-MM-dd` | ``AnswerValue/date(_:)`` |
/// | number | a decimal number | ``AnswerValue/number(_:)`` |
/// | email | `name@host.domain` | ``AnswerValue/text(_:)`` |
/// | text, textarea | anything (words joined by spaces) | ``AnswerValue/text(_:)`` |
/// | image, signature | refused: a photo goes in only through `photo FIELD_ID FILE` (issue 18) | — |
///
/// An empty value (`""`, or no words) is ``AnswerValue/clear`` for any input field (for an image or
/// signature field too). Display-only fields refuse every answer.
public enum AnswerInput {
    /// The change that `arguments` make to `field`'s answer: ``value(for:arguments:)``, then
    /// ``AnswerValue/change(for:current:)``.
    /// - Parameters:
    ///   - field: the field being answered.
    ///   - arguments: the words after the field id (already split like a shell).
    ///   - current: the field's stored answer (a table updates one cell of it).
    /// - Returns: the value to store, or ``AnswerChange/clear``.
    /// - Throws: ``FormsError`` `.notAnswerable` for display-only fields, `.invalidAnswer` when the
    ///   value does not fit the type; the message names the field and what it accepts.
    public static func change(for field: FormField, arguments: [String], current: JSONValue?) throws -> AnswerChange {
        try value(for: field, arguments: arguments).change(for: field, current: current)
    }

    /// The typed value `arguments` stand for in `field` (the words checked as far as their spelling goes;
    /// ``AnswerValue/change(for:current:)`` checks the rest).
    /// - Parameters:
    ///   - field: the field being answered (its type decides how the words are read).
    ///   - arguments: the words after the field id.
    /// - Returns: the value; ``AnswerValue/clear`` for no words or only blanks (tables excepted).
    /// - Throws: ``FormsError`` `.notAnswerable` for display-only fields; `.invalidAnswer` when the words
    ///   do not spell a value of the field's kind, or for text into an image or signature field.
    public static func value(for field: FormField, arguments: [String]) throws -> AnswerValue {
        if field.type.isDisplayOnly { throw notAnswerable(field) }
        let joined = arguments.count == 1 ? arguments[0] : arguments.joined(separator: " ")
        if field.type != .table && isBlank(joined) { return .clear }
        func refuse(_ accepts: String) -> FormsError { refusal(field, accepts: accepts, shown: joined) }
        switch field.type {
        case .rating:
            let text = trimmed(joined)
            guard text.count == 1, let value = Int(text), (0...5).contains(value) else {
                throw refuse(ratingAccepts)
            }
            return .rating(value)
        case .checkbox:
            switch trimmed(joined).lowercased() {
            case "true", "yes", "checked", "x": return .bool(true)
            case "false", "no", "unchecked": return .bool(false)
            default: throw refuse("true or false")
            }
        case .radio, .select, .passFail:
            return .option(joined)
        case .checkboxGroup:
            return try checkboxGroup(field, arguments: arguments, refuse: refuse)
        case .table:
            return try tableCell(field, arguments: arguments)
        case .date:
            let text = trimmed(joined)
            guard let day = CalendarDay(text) else {
                throw refuse("a date written yyyy-MM-dd (for example 2026-07-14)")
            }
            return .date(day)
        case .number:
            let text = trimmed(joined)
            guard isDecimalNumber(text) else { throw refuse(numberAccepts) }
            return .number(text)
        case .email:
            let text = trimmed(joined)
            guard isEmail(text) else { throw refuse(emailAccepts) }
            return .text(text)
        case .image, .signature:
            throw photoOnly(field)
        case .text, .textarea:
            return .text(joined)
        case .section, .label, .button, .unknown:
            throw FormsError(.notAnswerable, "Field \(field.reference) takes no answer.")
        }
    }

    // MARK: Sentences shared with AnswerValue

    static let ratingAccepts = "a rating from 0 to 5 (0 clears it)"
    static let numberAccepts = "a number such as 12 or 4.5"
    static let emailAccepts = "an e-mail address such as name@example.com"

    /// `Field "Label" (id 7) takes ACCEPTS; "SHOWN" is not accepted.`
    static func refusal(_ field: FormField, accepts: String, shown: String) -> FormsError {
        FormsError(.invalidAnswer, "Field \(field.reference) takes \(accepts); \"\(shown)\" is not accepted.")
    }

    /// The refusal of a display-only field.
    static func notAnswerable(_ field: FormField) -> FormsError {
        FormsError(
            .notAnswerable,
            "Field \(field.reference) is a \(kindName(field.type)) and takes no answer; "
                + "answer one of the form's input fields instead.")
    }

    /// The refusal of a value other than a clear for an image or signature field (issue 18).
    static func photoOnly(_ field: FormField) -> FormsError {
        FormsError(
            .invalidAnswer,
            "Field \(field.reference) is \(field.type == .image ? "an image" : "a signature") field and takes a "
                + "photo only through 'photo \(field.id) FILE'; clear it with 'photo \(field.id) --clear' "
                + "or 'answer \(field.id) \"\"'.")
    }

    /// A pass_fail field's options: its own, else Pass and Fail.
    static func passFailOptions(_ field: FormField) -> [String] {
        field.options.isEmpty ? ["Pass", "Fail"] : field.options
    }

    /// The option equal to `text` ignoring case (and surrounding spaces), in the option's own spelling.
    static func match(_ text: String, in options: [String]) -> String? {
        let wanted = trimmed(text).lowercased()
        return options.first { trimmed($0).lowercased() == wanted }
    }

    private static func checkboxGroup(
        _ field: FormField, arguments: [String],
        refuse: (String) -> FormsError
    ) throws -> AnswerValue {
        let words = arguments.filter { !isBlank($0) }
        guard !field.options.isEmpty else { return .options(words) }
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
        return .options(field.options.filter(chosen.contains))
    }

    private static func tableAccepts(_ field: FormField) -> String {
        let headers = field.columnHeaders
        return "ROW COLUMN VALUE, with ROW from 1 to \(field.tableRows) and COLUMN one of "
            + (headers.isEmpty ? "its columns" : "\(list(headers)) or its number")
    }

    private static func tableRefusal(_ field: FormField, shown: String) -> FormsError {
        FormsError(
            .invalidAnswer,
            "Field \(field.reference) is a table and takes \(tableAccepts(field)); \"\(shown)\" is not accepted.")
    }

    private static func headerless(_ field: FormField) -> FormsError {
        FormsError(
            .invalidAnswer,
            "Field \(field.reference) is a table without column headers, "
                + "so it cannot be answered; ask for the template to be fixed.")
    }

    private static func tableCell(_ field: FormField, arguments: [String]) throws -> AnswerValue {
        let headers = field.columnHeaders
        let refusal = tableRefusal(field, shown: arguments.joined(separator: " "))
        guard !headers.isEmpty else { throw headerless(field) }
        guard arguments.count >= 2, let row = Int(arguments[0]), (1...field.tableRows).contains(row) else {
            throw refusal
        }
        let column: String
        if let number = Int(arguments[1]), (1...headers.count).contains(number) {
            column = headers[number - 1]
        } else if let header = match(arguments[1], in: headers) {
            column = header
        } else {
            throw refusal
        }
        return .tableCell(row: row, column: column, text: arguments.dropFirst(2).joined(separator: " "))
    }

    /// The table after one cell is set: the stored rows padded to the table's rows and every header, the
    /// cell written; a table with no text left is cleared.
    static func tableChange(_ field: FormField, row: Int, column: String, text: String, current: JSONValue?) throws
        -> AnswerChange
    {
        let headers = field.columnHeaders
        guard !headers.isEmpty else { throw headerless(field) }
        guard (1...field.tableRows).contains(row), let header = match(column, in: headers) else {
            throw tableRefusal(field, shown: "\(row) \(column) \(text)")
        }
        var rows: [[String: JSONValue]] = (current?.arrayValue ?? []).map { $0.objectValue ?? [:] }
        while rows.count < field.tableRows { rows.append([:]) }
        for index in rows.indices {
            for header in headers where rows[index][header] == nil { rows[index][header] = "" }
        }
        rows[row - 1][header] = .string(text)
        let isBlank = rows.allSatisfy { $0.values.allSatisfy { $0 == "" || $0 == .null } }
        return isBlank ? .clear : .set(.array(rows.map(JSONValue.object)))
    }

    /// `text.trimmingCharacters(in: .whitespaces)`, without Foundation when both ends are ASCII (issue 17: the
    /// generic trim was most of a text answer's own cost). Below U+0080 the only members of
    /// `CharacterSet.whitespaces` are space and tab, so ASCII ends are trimmed byte by byte; an end at a
    /// non-ASCII scalar (which may be a Unicode space) is left to Foundation.
    static func trimmed(_ text: String) -> String {
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !isBlankByte($0) }) else { return "" }
        guard let last = bytes.lastIndex(where: { !isBlankByte($0) }), bytes[first] < 0x80, bytes[last] < 0x80
        else { return text.trimmingCharacters(in: .whitespaces) }
        if first == bytes.startIndex && bytes.index(after: last) == bytes.endIndex { return text }
        return String(text[first...last])
    }

    /// Whether `text` is empty or only `CharacterSet.whitespaces` (``trimmed(_:)`` is empty), with the same
    /// ASCII shortcut: the first byte that is neither space nor tab decides, unless it starts a non-ASCII scalar.
    static func isBlank(_ text: String) -> Bool {
        guard let first = text.utf8.first(where: { !isBlankByte($0) }) else { return true }
        return first < 0x80 ? false : text.trimmingCharacters(in: .whitespaces).isEmpty
    }

    /// A space or a tab: the ASCII members of `CharacterSet.whitespaces`.
    private static func isBlankByte(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

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
        let field = try schema.answerField(id: fieldID)
        return apply(try AnswerInput.change(for: field, arguments: arguments, current: values[fieldID]), to: fieldID)
    }

    /// Sets one answer from a typed value; see ``AnswerValue``.
    /// - Parameters:
    ///   - fieldID: the field's id as a string (`"5"`).
    ///   - value: the answer.
    ///   - schema: the inspection's template schema.
    /// - Returns: the value now stored, or `nil` when the answer was cleared.
    /// - Throws: ``FormsError`` `.unknownField` when the form has no such field, or as
    ///   ``AnswerValue/change(for:current:)`` does.
    @discardableResult
    public mutating func set(fieldID: String, value: AnswerValue, schema: FormSchema) throws -> JSONValue? {
        let field = try schema.answerField(id: fieldID)
        return apply(try value.change(for: field, current: values[fieldID]), to: fieldID)
    }

    private mutating func apply(_ change: AnswerChange, to fieldID: String) -> JSONValue? {
        switch change {
        case .set(let value):
            values[fieldID] = value
            return value
        case .clear:
            values[fieldID] = nil
            return nil
        }
    }
}

extension FormSchema {
    /// The field an answer names.
    /// - Parameter id: the field's id as a string (`"5"`).
    /// - Returns: the field (display-only ones too: answering them is refused by the answer's checks).
    /// - Throws: ``FormsError`` `.unknownField` with the form's input field ids, when it has no such field.
    public func answerField(id: String) throws -> FormField {
        guard let field = field(id: id) else {
            let ids = fields.filter { !$0.type.isDisplayOnly }.map(\.id)
            let known = ids.isEmpty ? "it has no input fields." : "its input fields are \(ids.joined(separator: ", "))."
            throw FormsError(.unknownField, "The form has no field with id \"\(id)\"; \(known)")
        }
        return field
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
