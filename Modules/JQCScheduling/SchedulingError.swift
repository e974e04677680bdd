import Foundation
import JQCKit

/// Why a scheduling action was refused, with a stable code, a sentence and the error underneath
/// (STYLE.md items 6 and 14). The code is `scheduling.<kind>` (`scheduling.not_found`).
public struct SchedulingError: CodedError, Hashable {
    /// The finer kind (`scheduling.<raw value>`).
    public enum Kind: String, CodedErrorKind, Hashable {
        /// No cached schedule has that id.
        case notFound = "not_found"
        /// The action needs the server and this device is offline (rule 80).
        case offline
        /// The day given is before the server's today (a follow-up planned in the past is overdue at once).
        case pastDate = "past_date"
        /// The server refused or could not be reached.
        case rejected
        /// The local store failed.
        case storage
        /// The codes' module part, `scheduling`.
        public static var module: String { "scheduling" }
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

    /// The stable code, `scheduling.<kind>` (`scheduling.not_found`).
    public var code: String { kind.code }

    /// Same kind, sentence and cause (``/JQCKit/sameCause(_:_:)``).
    public static func == (first: SchedulingError, second: SchedulingError) -> Bool {
        first.kind == second.kind && first.message == second.message && sameCause(first.cause, second.cause)
    }

    /// Hashes the kind and the sentence.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(message)
    }
}
