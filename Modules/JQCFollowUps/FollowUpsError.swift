import Foundation

/// Why a follow-up action was refused, with a stable code and a sentence a person can act on.
public struct FollowUpsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code (`followups.<code>`).
    public enum Code: String, Sendable, Hashable {
        /// Neither a follow-up request nor a local completed inspection has that id.
        case notFound = "not_found"
        /// The parent is a local draft, not a completed inspection.
        case notCompleted = "not_completed"
        /// The parent is not on this device and the server could not be asked (offline, or it failed).
        case unavailable
        /// The local store failed.
        case storage
    }

    /// What kind of refusal.
    public let code: Code
    /// The sentence.
    public let message: String

    /// A refusal with a sentence.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The stable code as text (`followups.not_found`).
    public var codeText: String { "followups.\(code.rawValue)" }

    public var description: String { message }
}
