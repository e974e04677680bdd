import Foundation
import JQCKit

/// Why a follow-up action was refused, with a stable code, a sentence and the error underneath
/// (STYLE.md items 6 and 14). The code is `followups.<kind>` (`followups.not_found`).
public struct FollowUpsError: CodedError, Hashable {
    /// The finer kind (`followups.<raw value>`).
    public enum Kind: String, CodedErrorKind, Hashable {
        /// Neither a follow-up request nor a local completed inspection has that id.
        case notFound = "not_found"
        /// The parent is a local draft, not a completed inspection.
        case notCompleted = "not_completed"
        /// The parent is not on this device and the server could not be asked (offline, or it failed).
        case unavailable
        /// The local store failed.
        case storage
        /// The codes' module part, `followups`.
        public static var module: String { "followups" }
    }

    /// What kind of refusal.
    public let kind: Kind
    /// The sentence.
    public let message: String
    /// The error underneath (the store's, the server's), when there is one.
    public let cause: (any Error)?

    /// A refusal with a sentence and, when it wraps another error, that error.
    public init(_ kind: Kind, _ message: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }

    /// The stable code, `followups.<kind>` (`followups.not_found`).
    public var code: String { kind.code }

    /// Same kind, sentence and cause (``/JQCKit/sameCause(_:_:)``).
    public static func == (first: FollowUpsError, second: FollowUpsError) -> Bool {
        first.kind == second.kind && first.message == second.message && sameCause(first.cause, second.cause)
    }

    /// Hashes the kind and the sentence.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(message)
    }
}
