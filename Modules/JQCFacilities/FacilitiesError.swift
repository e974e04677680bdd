import Foundation
import JQCKit

/// Why a reference-data operation failed, with a stable code, a sentence a person can act on and the
/// error underneath (STYLE.md items 6 and 14). The code is `facilities.<kind>` (`facilities.bad_reply`).
public struct FacilitiesError: CodedError, Hashable {
    /// The finer kind (`facilities.<raw value>`).
    public enum Kind: String, CodedErrorKind, Hashable {
        /// The local store failed.
        case storage
        /// The server's reply could not be used.
        case badReply = "bad_reply"
        /// The codes' module part, `facilities`.
        public static var module: String { "facilities" }
    }

    /// What kind of failure.
    public let kind: Kind
    /// The sentence.
    public let message: String
    /// The error underneath (the store's, the reply decoder's), when there is one.
    public let cause: (any Error)?

    /// A failure with a sentence and an optional cause.
    public init(_ kind: Kind, _ message: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }

    /// The stable code, `facilities.<kind>`.
    public var code: String { kind.code }

    /// Same kind, sentence and cause (``/JQCKit/sameCause(_:_:)``).
    public static func == (first: FacilitiesError, second: FacilitiesError) -> Bool {
        first.kind == second.kind && first.message == second.message && sameCause(first.cause, second.cause)
    }

    /// Hashes the kind and the sentence.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(message)
    }
}
