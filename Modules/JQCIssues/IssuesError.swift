import Foundation
import JQCKit

/// Why an issue action was refused, with a stable code, a sentence a person can act on and the error
/// underneath (STYLE.md items 6 and 14). The code is `issues.<kind>` (`issues.not_found`).
public struct IssuesError: CodedError, Hashable {
    /// The finer kind (`issues.<raw value>`).
    public enum Kind: String, CodedErrorKind, Hashable {
        /// No local issue has that id.
        case notFound = "not_found"
        /// The severity, status or handler type is not one the server knows.
        case invalidValue = "invalid_value"
        /// The facility or area is unknown, inactive or does not match.
        case unknownFacility = "unknown_facility"
        /// More photos than allowed (5 for a standalone issue), or a photo was refused.
        case photo
        /// The action does not fit the issue's state (retry of an issue that is not failed, comments on an
        /// issue the server does not have yet).
        case invalidState = "invalid_state"
        /// The server could not be reached, or refused (comments are online only).
        case server
        /// The local store failed.
        case storage
        /// The codes' module part, `issues`.
        public static var module: String { "issues" }
    }

    /// What kind of refusal.
    public let kind: Kind
    /// The sentence.
    public let message: String
    /// The error underneath (the store's, the photo pipeline's, the server's), when there is one.
    public let cause: (any Error)?

    /// A refusal with a sentence and, when it wraps another error, that error.
    public init(_ kind: Kind, _ message: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }

    /// The stable code, `issues.<kind>` (`issues.not_found`).
    public var code: String { kind.code }

    /// Same kind, sentence and cause (``/JQCKit/sameCause(_:_:)``).
    public static func == (first: IssuesError, second: IssuesError) -> Bool {
        first.kind == second.kind && first.message == second.message && sameCause(first.cause, second.cause)
    }

    /// Hashes the kind and the sentence.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(message)
    }
}
