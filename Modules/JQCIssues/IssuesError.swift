import Foundation

/// Why an issue action was refused, with a stable code and a sentence a person can act on (STYLE.md item 6).
public struct IssuesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code (`issues.<code>`).
    public enum Code: String, Sendable, Hashable {
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

    /// The stable code as text (`issues.not_found`).
    public var codeText: String { "issues.\(code.rawValue)" }

    /// The sentence.
    public var description: String { message }
}
