import Foundation
import JQCKit

/// A typed answer to one field: the engine's entry point for answering (issue 16, "Typed edges";
/// `InspectionService.answer(localID:fieldID:value:)`), so a front end with real controls (the iPad app)
/// passes values instead of words. ``change(for:current:)`` checks the value against the field's type on
/// the pinned schema and gives what `form_data` stores — exactly what the shell's words give, since the
/// shell's parser (``AnswerInput``) maps its words onto an `AnswerValue` first.
///
/// | case | field types | stored as |
/// |---|---|---|
/// | ``rating(_:)`` | rating | `"4"` (`0` clears) |
/// | ``bool(_:)`` | checkbox | `"true"` / `"false"` |
/// | ``option(_:)`` | radio, select, pass_fail | the option's own text (matched ignoring case; pass_fail's default options are Pass and Fail) |
/// | ``options(_:)`` | checkbox_group | array of option texts, in option order (`[]` clears) |
/// | ``text(_:)`` | text, textarea, email (an address) | the text (blank clears) |
/// | ``date(_:)`` | date | `yyyy-MM-dd` |
/// | ``number(_:)`` | number | the decimal text as given (`12`, `-4.5`) |
/// | ``tableCell(row:column:text:)`` | table | `table_rows` objects `{header: text}`, that one cell set |
/// | ``clear`` | every input field | the answer removed |
///
/// Image and signature fields take no value but ``clear``: their answer is a photo, set only through
/// `InspectionPhotos.attach` (SHELL.md `photo FIELD_ID FILE`; issue 18). Radio, select and
/// checkbox_group fields without options take any text.
public enum AnswerValue: Sendable, Hashable {
    /// A rating from 0 to 5; 0 clears the answer.
    case rating(Int)
    /// A checkbox: checked or not.
    case bool(Bool)
    /// One option of a radio, select or pass_fail field, by its text (case is ignored).
    case option(String)
    /// Options of a checkbox_group field, by their texts (case is ignored; stored in option order).
    case options([String])
    /// Text for a text, textarea or email field (whitespace only clears).
    case text(String)
    /// A calendar day for a date field.
    case date(CalendarDay)
    /// A decimal number for a number field, as text (digits, one optional `.`, an optional sign), so the
    /// inspector's digits are stored as typed.
    case number(String)
    /// One cell of a table field: `row` from 1 to the table's rows, `column` one of its headers (case is
    /// ignored), `text` the cell's text ("" blanks the cell; a table with no text left is cleared).
    case tableCell(row: Int, column: String, text: String)
    /// Removes the field's answer (any input field; for an image or signature field the service also
    /// discards its pending photo).
    case clear

    /// The change this value makes to `field`'s answer.
    /// - Parameters:
    ///   - field: the field on the pinned schema.
    ///   - current: the field's stored answer (a table cell updates the stored rows).
    /// - Returns: the value to store, or ``AnswerChange/clear``.
    /// - Throws: ``FormsError`` `.notAnswerable` for display-only fields; `.invalidAnswer` when the value
    ///   is not the field's kind or does not fit it (the sentence names the field and what it takes).
    public func change(for field: FormField, current: JSONValue?) throws -> AnswerChange {
        if field.type.isDisplayOnly { throw AnswerInput.notAnswerable(field) }
        if case .clear = self { return .clear }
        func refuse(_ accepts: String, _ shown: String) -> FormsError {
            AnswerInput.refusal(field, accepts: accepts, shown: shown)
        }
        switch (field.type, self) {
        case (.image, _), (.signature, _):
            throw AnswerInput.photoOnly(field)
        case (.rating, .rating(let value)):
            guard (0...5).contains(value) else { throw refuse(AnswerInput.ratingAccepts, String(value)) }
            return value == 0 ? .clear : .set(.string(String(value)))
        case (.checkbox, .bool(let checked)):
            return .set(checked ? "true" : "false")
        case (.radio, .option(let text)), (.select, .option(let text)):
            if Self.isBlank(text) { return .clear }
            guard !field.options.isEmpty else { return .set(.string(text)) }
            guard let option = AnswerInput.match(text, in: field.options) else {
                throw refuse("one of \(AnswerInput.list(field.options))", text)
            }
            return .set(.string(option))
        case (.passFail, .option(let text)):
            if Self.isBlank(text) { return .clear }
            let options = AnswerInput.passFailOptions(field)
            guard let option = AnswerInput.match(text, in: options) else {
                throw refuse("one of \(AnswerInput.list(options)), or \"\" to clear", text)
            }
            return .set(.string(option))
        case (.checkboxGroup, .options(let texts)):
            let chosen = texts.filter { !Self.isBlank($0) }
            if chosen.isEmpty { return .clear }
            guard !field.options.isEmpty else { return .set(.array(chosen.map(JSONValue.string))) }
            var matched = Set<String>()
            for text in chosen {
                guard let option = AnswerInput.match(text, in: field.options) else {
                    throw refuse("one or more of \(AnswerInput.list(field.options))", text)
                }
                matched.insert(option)
            }
            return .set(.array(field.options.filter(matched.contains).map(JSONValue.string)))
        case (.table, .tableCell(let row, let column, let text)):
            return try AnswerInput.tableChange(field, row: row, column: column, text: text, current: current)
        case (.date, .date(let day)):
            return .set(.string(day.text))
        case (.number, .number(let text)):
            let trimmed = AnswerInput.trimmed(text)
            if trimmed.isEmpty { return .clear }
            guard AnswerInput.isDecimalNumber(trimmed) else { throw refuse(AnswerInput.numberAccepts, text) }
            return .set(.string(trimmed))
        case (.email, .text(let text)):
            let trimmed = AnswerInput.trimmed(text)
            if trimmed.isEmpty { return .clear }
            guard AnswerInput.isEmail(trimmed) else { throw refuse(AnswerInput.emailAccepts, text) }
            return .set(.string(trimmed))
        case (.text, .text(let text)), (.textarea, .text(let text)):
            return Self.isBlank(text) ? .clear : .set(.string(text))
        default:
            throw FormsError(
                .invalidAnswer,
                "Field \(field.reference) is a \(field.type.rawValue) field and takes "
                    + "\(Self.kind(taken: field.type)), not \(kind).")
        }
    }

    /// What kind of value this is, for sentences (`a rating`, `text`).
    public var kind: String {
        switch self {
        case .rating: "a rating"
        case .bool: "a true/false value"
        case .option: "an option"
        case .options: "a list of options"
        case .text: "text"
        case .date: "a date"
        case .number: "a number"
        case .tableCell: "a table cell"
        case .clear: "a clear"
        }
    }

    /// The kind of value a field type takes, for sentences.
    static func kind(taken type: FormFieldType) -> String {
        switch type {
        case .rating: "a rating from 0 to 5"
        case .checkbox: "true or false"
        case .radio, .select, .passFail: "one of its options"
        case .checkboxGroup: "a list of its options"
        case .table: "a table cell (row, column, text)"
        case .date: "a date"
        case .number: "a number"
        case .text, .textarea, .email: "text"
        default: "no answer"
        }
    }

    static func isBlank(_ text: String) -> Bool { AnswerInput.isBlank(text) }
}
