import Foundation

/// Why a scheduling action was refused, with a stable code and a sentence a person can act on.
public struct SchedulingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code (`scheduling.<code>`).
    public enum Code: String, Sendable, Hashable {
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

    /// The stable code as text (`scheduling.not_found`).
    public var codeText: String { "scheduling.\(code.rawValue)" }

    public var description: String { message }
}
