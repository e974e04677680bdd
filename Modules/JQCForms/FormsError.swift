import JQCKit

/// The one error type of JQCForms: a stable ``code`` and a ``message`` that is a sentence a person
/// can act on (STYLE.md item 6).
public struct FormsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is. The raw values are stable and may be shown in `--json` output.
    public enum Code: String, Sendable, Hashable {
        /// A template's form schema is not readable JSON.
        case malformedSchema = "forms.malformed_schema"
        /// An answer names a field id the form does not have.
        case unknownField = "forms.unknown_field"
        /// The field is display-only (section, label, button, unknown type) and takes no answer.
        case notAnswerable = "forms.not_answerable"
        /// The value given does not fit the field's type.
        case invalidAnswer = "forms.invalid_answer"
    }

    /// The stable code.
    public let code: Code
    /// What went wrong and how to fix it, as a sentence.
    public let message: String
    /// The underlying cause, as text (for example the JSON parser's reason), when there is one.
    public let cause: String?

    /// Makes an error.
    /// - Parameters:
    ///   - code: the stable code.
    ///   - message: a sentence naming what went wrong and what is accepted.
    ///   - cause: the underlying reason, when there is one.
    public init(_ code: Code, _ message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The message, followed by the cause when there is one.
    public var description: String {
        guard let cause else { return message }
        let detail = cause.hasSuffix(".") ? cause : cause + "."
        return "\(message) Detail: \(detail)"
    }
}
