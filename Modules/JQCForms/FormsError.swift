import Foundation
import JQCKit

/// Why a form schema, an answer or a score file was refused, with a stable code, a sentence and the error
/// underneath (STYLE.md items 6 and 14). The code is `forms.<kind>` (`forms.malformed_schema`).
public struct FormsError: CodedError, Hashable {
    /// What kind of problem this is (`forms.<raw value>`, shown in `--json` output).
    public enum Kind: String, CodedErrorKind, Hashable {
        /// A template's form schema is not readable JSON.
        case malformedSchema = "malformed_schema"
        /// An answer names a field id the form does not have.
        case unknownField = "unknown_field"
        /// The field is display-only (section, label, button, unknown type) and takes no answer.
        case notAnswerable = "not_answerable"
        /// The value given does not fit the field's type.
        case invalidAnswer = "invalid_answer"
        /// The codes' module part, `forms`.
        public static var module: String { "forms" }
    }

    /// The finer kind.
    public let kind: Kind
    /// What went wrong and how to fix it, as a sentence.
    public let message: String
    /// The underlying error (for example the JSON parser's ``/JQCKit/JSONValueError``), when there is one.
    public let cause: (any Error)?

    /// Makes an error.
    /// - Parameters:
    ///   - kind: the finer kind.
    ///   - message: a sentence naming what went wrong and what is accepted.
    ///   - cause: the underlying error, when there is one.
    public init(_ kind: Kind, _ message: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }

    /// The stable code, `forms.<kind>` (`forms.malformed_schema`).
    public var code: String { kind.code }

    /// The message, followed by the cause's sentence when there is one.
    public var description: String {
        guard let cause else { return message }
        let text = String(describing: cause)
        let detail = text.hasSuffix(".") ? text : text + "."
        return "\(message) Detail: \(detail)"
    }

    /// Same kind, sentence and cause (``/JQCKit/sameCause(_:_:)``).
    public static func == (first: FormsError, second: FormsError) -> Bool {
        first.kind == second.kind && first.message == second.message && sameCause(first.cause, second.cause)
    }

    /// Hashes the kind and the sentence.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(message)
    }
}
